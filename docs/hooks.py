"""MkDocs hook: the pages that are written from the code at build time.

A page asks for generated text with a marker comment on a line of its own:

- ``<!-- ladderboard: include PATH -->`` the file ``PATH`` (from the repository
  root), so that ``CONTRIBUTING.md`` is one file on GitHub and on the site;
- ``<!-- ladderboard: settings -->`` every field of
  :class:`ladderboard.server.settings.Settings`, with its environment variable,
  default and the description from the class docstring;
- ``<!-- ladderboard: cli -->`` the ``--help`` of every command and sub-command
  of the ``ladderboard`` program, walked from the click command tree of
  ``ladderboard.cli.app``;
- ``<!-- ladderboard: mechanisms -->`` every registered mechanism
  (``ladderboard.mechanisms.MECHANISMS``);
- ``<!-- ladderboard: layers -->`` the layer map that ``tests/test_layers.py``
  enforces.

``on_config`` lists every experiment report in the nav. Nothing generated is
committed: the site always shows the code it was built
from, and a setting, mechanism or command added to the code appears in it
without an edit here.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- ladderboard: (?P<what>\w+)(?: (?P<arg>\S+))? -->$", re.M)


def on_config(config: Any) -> Any:
    """List every experiment report (``docs/experiments/ID.md``) under the
    nav's Experiments section, in the order of their numbers, so that a report
    an experiment writes appears without an edit to ``mkdocs.yml``."""
    section = next(
        (entry["Experiments"] for entry in config["nav"] or () if "Experiments" in entry), None
    )
    if section is None:
        return config
    listed = {next(iter(e.values())) if isinstance(e, dict) else e for e in section}
    folder = Path(config["docs_dir"]) / "experiments"
    reports = [
        f"experiments/{path.name}"
        for path in sorted(folder.glob("*.md"), key=_natural)
        if path.name != "index.md"
    ]
    section.extend(report for report in reports if report not in listed)
    return config


def _natural(path: Path) -> list[Any]:
    """``e2`` before ``e11``: digits compared as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.stem)]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each marker of ``markdown`` by the text it names."""
    return MARKER.sub(_expand, markdown)


def _expand(match: re.Match[str]) -> str:
    what, arg = match["what"], match["arg"]
    if what == "include":
        # The included file's links to docs/ pages are relative to the repository root.
        text = (ROOT / arg).read_text(encoding="utf-8").replace("](docs/", "](")
        return MARKER.sub(_expand, text)
    generators = {
        "settings": settings_table,
        "cli": cli_reference,
        "mechanisms": mechanism_table,
        "layers": layer_map,
    }
    if what not in generators:
        raise ValueError(f"unknown ladderboard marker {what!r}; known: {sorted(generators)}")
    return generators[what]()


# ----------------------------------------------------------------- settings


def _docstring_parameters(doc: str) -> dict[str, str]:
    """The entries of a numpy-style ``Parameters`` section: name → text.

    An entry with no text of its own is described by its type line.
    """
    lines = inspect.cleandoc(doc).splitlines()
    start = lines.index("Parameters") + 2
    entries: dict[str, list[str]] = {}
    current = ""
    for line in lines[start:]:
        if line and not line.startswith(" "):
            if " : " not in line:
                break
            current, kind = line.split(" : ", 1)
            entries[current] = [f"One of {kind}."] if kind.startswith("{") else []
        elif current and line.strip():
            entries[current].append(line.strip())
    return {name: " ".join(text) for name, text in entries.items()}


def _cell(text: str) -> str:
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)  # reStructuredText roles
    text = text.replace("``", "`")
    return text.replace("|", "\\|")


def _default(value: Any) -> str:
    secret = getattr(value, "get_secret_value", None)
    if secret is not None:
        value = secret()
    if value == "":
        return "(empty)"
    return f"`{value}`"


def settings_table() -> str:
    """Every ``LADDERBOARD_*`` setting: field, variable, default, description."""
    from ladderboard.server.settings import Settings

    described = _docstring_parameters(Settings.__doc__ or "")
    prefix = Settings.model_config.get("env_prefix", "")
    rows = ["| setting | environment variable | default | what it is |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        text = field.description or described.get(name)
        if not text:
            raise ValueError(f"Settings.{name} has no description in the class docstring")
        variable = f"{prefix}{name}".upper()
        rows.append(f"| `{name}` | `{variable}` | {_default(field.default)} | {_cell(text)} |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------------- cli


def _commands(command: Any, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    found = [path]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        if not getattr(sub, "hidden", False):
            found += _commands(sub, (*path, name))
    return found


def cli_reference() -> str:
    """The ``--help`` of every command, walked from the top-level Typer app."""
    import typer.main
    from typer.testing import CliRunner

    from ladderboard.cli import app

    root = typer.main.get_command(app)
    runner = CliRunner()
    environment = {"COLUMNS": "80", "TERMINAL_WIDTH": "80", "NO_COLOR": "1"}
    previous = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    try:
        sections = []
        for path in _commands(root, ()):
            result = runner.invoke(app, [*path, "--help"], prog_name="ladderboard")
            if result.exit_code != 0:
                raise RuntimeError(f"ladderboard {' '.join(path)} --help failed: {result.output}")
            level = "#" * min(2 + len(path), 4) if path else "##"
            title = " ".join(("ladderboard", *path))
            sections.append(f"{level} `{title}`\n\n```text\n{result.output.rstrip()}\n```\n")
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return "\n".join(sections)


# --------------------------------------------------------------- mechanisms


def mechanism_table() -> str:
    """Every registered mechanism: name, class, input, competitions, summary."""
    from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS

    rows = [
        "| name | class | takes | in competitions | what it is |",
        "|---|---|---|---|---|",
    ]
    for name, klass in MECHANISMS.items():
        doc = inspect.cleandoc(klass.__doc__ or "")
        summary = " ".join(doc.split("\n\n", 1)[0].split())
        competition = "yes" if name in COMPETITION_MECHANISMS else "no"
        rows.append(
            f"| `{name}` | [`{klass.__name__}`][ladderboard.mechanisms.{klass.__name__}]"
            f" | {klass.input_kind} | {competition} | {_cell(summary)} |"
        )
    return "\n".join(rows) + "\n"


# ------------------------------------------------------------------- layers


def _layer_rules() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """``CORE`` and ``ALLOWED`` as ``tests/test_layers.py`` writes them down."""
    tree = ast.parse((ROOT / "tests" / "test_layers.py").read_text(encoding="utf-8"))
    values: dict[str, Any] = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in {"CORE", "ALLOWED"}:
            expression = ast.Expression(node.value)  # type: ignore[arg-type]
            code = compile(expression, "tests/test_layers.py", "eval")
            values[target.id] = eval(code, {"__builtins__": {}, "frozenset": frozenset})
    return values["CORE"], values["ALLOWED"]


def layer_map() -> str:
    """The packages by height: each above everything it may import."""
    core, allowed = _layer_rules()
    height: dict[str, int] = {}

    def level(package: str) -> int:
        if package not in height:
            height[package] = 1 + max((level(p) for p in allowed.get(package, ())), default=0)
        return height[package]

    for package in allowed:
        level(package)
    width = max(len(p) for p in allowed)
    indent = " " * (width + 5)
    lines = []

    def add(height: int, package: str, text: str) -> None:
        wrapped = textwrap.wrap(text, 78 - len(indent))
        lines.append(f"{height}  {package:<{width}}  {wrapped[0]}")
        lines.extend(indent + line for line in wrapped[1:])

    for h in sorted(set(height.values()), reverse=True):
        for package in sorted(p for p in allowed if height[p] == h):
            add(h, package, "over " + (", ".join(sorted(allowed[package])) or "the core only"))
    add(0, "core", ", ".join(sorted(m for m in core if m)) + ": numpy and scipy only")
    return "```text\n" + "\n".join(lines) + "\n```\n"


# ------------------------------------------------------------- docstrings

_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):`~?([^`]+)`")
_BORDER = re.compile(r"^(=+)\s+(=+)\s*$")
_ITEM = re.compile(r"^\*{0,2}\w+(, \*{0,2}\w+)*( : .+)?$")
_ITEM_SECTIONS = {"Parameters", "Attributes", "Returns", "Yields", "Raises", "Other Parameters"}


def sectioned(docstring: str) -> str:
    """``docstring`` with the section headers numpy style expects written in.

    The package's docstrings run prose on after a ``Parameters`` list and put
    doctests after a blank line; griffe would read that prose as parameters
    and the doctests as text. A prose paragraph after an item section starts
    a ``Notes`` section, and doctests outside ``Examples`` start one.
    """
    lines = _simple_tables(_ROLE.sub(r"`\1`", docstring).splitlines())
    out: list[str] = []
    section = ""
    for i, line in enumerate(lines):
        after_blank = i == 0 or not lines[i - 1].strip()
        if i + 1 < len(lines) and line.strip() and set(lines[i + 1].strip()) == {"-"}:
            section = line.strip()
        elif line.startswith(">>>") and after_blank and section != "Examples":
            out += ["Examples", "--------"]
            section = "Examples"
        elif (
            section in _ITEM_SECTIONS
            and after_blank
            and line.strip()
            and not line.startswith(" ")
            and not _ITEM.match(line)
        ):
            out += ["Notes", "-----"]
            section = "Notes"
        out.append(line)
    return "\n".join(out)


def _simple_tables(lines: list[str]) -> list[str]:
    """reStructuredText simple tables of two columns as Markdown lists.

    A border opens a table; inside one, a border followed by a blank line (or
    the end) closes it, and any other (under a header row) is dropped.
    """
    out: list[str] = []
    second: int | None = None  # where the second column starts, inside a table
    for i, line in enumerate(lines):
        border = _BORDER.match(line)
        if border:
            closing = i + 1 == len(lines) or not lines[i + 1].strip()
            if second is None:
                second = border.start(2)
            elif closing:
                second = None
            continue
        if second is None:
            out.append(line)
        elif line[:second].strip():
            out.append(f"- {line[:second].strip()}: {line[second:].strip()}")
        elif line.strip():
            out[-1] += " " + line.strip()
    return out


try:
    import griffe
except ImportError:  # the hook's markers need no griffe; mkdocstrings brings it
    pass
else:

    class NumpySections(griffe.Extension):
        """A griffe extension: every docstring through :func:`sectioned`, and
        a method decorated ``@documented_by(source)``
        (:func:`ladderboard.engine.documented.documented_by`) given
        ``source``'s docstring, as it is at run time."""

        def on_object(self, *, obj: Any, loader: Any, **kwargs: Any) -> None:
            """Rewrite ``obj``'s docstring before it is parsed."""
            if obj.docstring is None and obj.is_function:
                source = _documented_by(obj, loader)
                if source is not None and source.docstring is not None:
                    obj.docstring = griffe.Docstring(
                        source.docstring.value, lineno=source.docstring.lineno, parent=obj
                    )
            if obj.docstring is not None:
                obj.docstring.value = sectioned(obj.docstring.value)

    def _documented_by(function: Any, loader: Any) -> Any:
        """The object named by ``function``'s ``@documented_by(...)``, if any.

        :func:`sectioned` leaves a docstring it has already rewritten as it
        is, so the source may be rewritten before or after it is copied."""
        for decorator in function.decorators:
            call = decorator.value
            if decorator.callable_path.endswith(".documented_by") and isinstance(
                call, griffe.ExprCall
            ):
                return loader.modules_collection[call.arguments[0].canonical_path]
        return None
