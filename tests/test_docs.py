"""The documentation site builds in strict mode and documents everything.

``mkdocs build --strict`` turns every warning (a broken link, a docstring
griffe cannot read, a reference that resolves to nothing) into a failure. The
built site must name every server setting with its environment variable, every
registered mechanism and every command of the ``ladderboard`` program, which
``docs/hooks.py`` writes from the code; and the guides' Python examples must
print what they say.
"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import inspect
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from system import require

ROOT = Path(__file__).resolve().parents[1]


def text_of(page: Path) -> str:
    """A built page's text: tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    require(
        importlib.util.find_spec("mkdocs") is not None,
        'the docs extra builds the site: pip install -e ".[docs]"',
    )
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"]
    build = subprocess.run(
        [*command, "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stderr[-5000:]}"
    return out


@pytest.mark.slow
def test_every_setting_is_documented_with_its_variable(site):
    from ladderboard.server.settings import Settings

    page = text_of(site / "operator" / "index.html")
    for name in Settings.model_fields:
        assert f"LADDERBOARD_{name.upper()}" in page and name in page, name


@pytest.mark.slow
def test_every_registered_mechanism_is_documented(site):
    from ladderboard.mechanisms import MECHANISMS

    table = text_of(site / "library" / "index.html")
    reference = text_of(site / "api" / "mechanisms" / "index.html")
    for name, klass in MECHANISMS.items():
        assert name in table and klass.__name__ in table, name
        assert klass.__name__ in reference, klass.__name__


def command_paths() -> list[str]:
    import typer.main

    from ladderboard.cli import app

    def walk(command, path):
        yield path
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            if not sub.hidden:
                yield from walk(sub, f"{path} {name}")

    return list(walk(typer.main.get_command(app), "ladderboard"))


def test_the_command_tree_is_walked_to_its_sub_commands():
    paths = command_paths()
    assert {"ladderboard submit", "ladderboard team import", "ladderboard experiment run"} <= set(
        paths
    )


@pytest.mark.slow
def test_every_command_and_sub_command_is_documented(site):
    page = text_of(site / "cli" / "index.html")
    for path in command_paths():
        assert f"Usage: {path} " in " ".join(page.split()), path


@pytest.mark.slow
def test_the_engine_page_shows_the_facade_docstrings(site):
    """``Competitions``' methods take their docstrings from the resource
    methods they hand the work to; the page shows them on the facade."""
    from ladderboard.engine import Competitions

    page = " ".join(text_of(site / "api" / "engine" / "index.html").split())
    for name in ("create", "close", "board", "member_admission", "submit", "explain"):
        first = " ".join(inspect.getdoc(getattr(Competitions, name)).split("\n\n")[0].split())
        first = re.sub(r":\w+:`~?([^`]+)`", r"\1", first).replace("``", "")
        assert first[:60] in page, name


@pytest.mark.slow
def test_contributing_shows_the_layer_map(site):
    page = text_of(site / "contributing" / "index.html")
    for package in ("engine", "server", "store", "rules"):
        assert re.search(rf"^\d+\s+{package}\s+over ", page, re.M), package


@pytest.mark.slow
def test_every_experiment_report_is_in_the_site_and_its_nav(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    for report in (ROOT / "docs" / "experiments").glob("*.md"):
        if report.stem != "index":
            assert (site / "experiments" / report.stem / "index.html").exists(), report.name
            assert f'href="experiments/{report.stem}/"' in home, report.name


PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]


def shown_commands() -> list[tuple[str, list[str]]]:
    """Every ``ladderboard`` command line of a shell block in the docs: page, words."""
    from test_readme import shell_commands

    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S):
            for words in shell_commands(block):
                while words and "=" in words[0] and not words[0].startswith("-"):
                    words = words[1:]  # VARIABLE=value before the command
                if words and words[0] == "ladderboard":
                    found.append((page.relative_to(ROOT).as_posix(), words))
    return found


def test_every_command_shown_in_the_docs_exists_with_its_options():
    """A command line of a page names a real command, and each ``--option`` it
    gives is one of that command's (its optional ``[...]`` parts too)."""
    import typer.main

    from ladderboard.cli import app

    root = typer.main.get_command(app)
    commands = shown_commands()
    assert len(commands) > 20
    for page, words in commands:
        command, rest = root, words[1:]
        while rest and rest[0] in getattr(command, "commands", {}):
            command, rest = command.commands[rest[0]], rest[1:]
        assert command is not root, f"{page}: {shlex.join(words)} names no command"
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        options = {w.strip("[]").split("=")[0] for w in rest if w.lstrip("[").startswith("--")}
        unknown = options - known - {"--help"}
        assert not unknown, f"{page}: {shlex.join(words)}: no such option {sorted(unknown)}"


def python_examples(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), re.M | re.S)


GUIDE = ROOT / "docs" / "model-selection.md"


@pytest.mark.slow
@pytest.mark.parametrize("example", python_examples(GUIDE), ids=lambda e: e.split("\n")[0][:30])
def test_guide_example_prints_what_it_says(example):
    from test_readme import printed_output

    expected = printed_output(example)
    assert expected, "an example that says nothing of what it prints"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(GUIDE), "exec"), {})
    assert out.getvalue().splitlines() == expected
