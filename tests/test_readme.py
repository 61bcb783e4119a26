"""The README's commands and examples are what a newcomer runs: keep them true.

The set-up commands are checked as written; the library examples run and must
print what they say; the organiser's and the participant's commands run one
by one, as shown, against a live server on a loopback port.
"""

import contextlib
import csv
import io
import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SETUP = [
    'pip install -e ".[all]" && ladderboard demo',
    'pip install -e ".[all,test]" && pytest -n auto',
]


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(), re.M | re.S)


def test_readme_has_exactly_the_two_setup_commands():
    blocks = code_blocks("bash")
    assert blocks, "README.md has no bash code block"
    assert blocks[0].strip().splitlines() == SETUP


def printed_output(example: str) -> list[str]:
    """The comment lines that directly follow code: what the example says it prints.

    A comment after a blank line is prose, and so is the rest of its run.
    """
    lines, output, previous = [], False, ""
    for line in example.splitlines():
        if line.startswith("# "):
            output = output or (previous != "" and not previous.startswith("#"))
            if output:
                lines.append(line[2:])
        else:
            output = False
        previous = line
    return lines


def test_readme_has_its_two_examples():
    assert len(code_blocks("python")) == 2


@pytest.mark.parametrize(
    ("example", "lines"), list(zip(code_blocks("python"), (5, 3), strict=False))
)
def test_readme_example_prints_what_it_says(example, lines):
    expected = printed_output(example)
    assert len(expected) == lines
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {})
    assert out.getvalue().splitlines() == expected


# ------------------------------------------------ the organiser's and the participant's paths


def shell_commands(block: str) -> list[list[str]]:
    """Each command of a shell block as its words: continued lines joined,
    comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [words for line in joined.splitlines() if (words := shlex.split(line, comments=True))]


def path_after(heading: str) -> list[list[str]]:
    """The commands of the first shell block after the section ``heading``."""
    rest = README.read_text().split(f"\n## {heading}\n", 1)[1]
    block = re.search(r"^```bash\n(.*?)^```", rest, re.M | re.S)
    assert block, f"no bash block after {heading!r}"
    return shell_commands(block[1])


ORGANISER = path_after("Running a competition, from its description to its export")
PARTICIPANT = path_after("Taking part: sign up, join, submit")


def test_every_shell_block_is_the_set_up_or_a_path():
    assert len(code_blocks("bash")) == 3
    assert all(words[0] == "ladderboard" for words in ORGANISER + PARTICIPANT)


def test_shell_commands_are_read_as_a_shell_would():
    block = 'ladderboard a SLUG \\\n    --m "two words"   # a comment\nladderboard b\n'
    assert shell_commands(block) == [["ladderboard", "a", "SLUG", "--m", "two words"],
                                     ["ladderboard", "b"]]  # fmt: skip


@pytest.mark.slow
def test_the_organisers_and_participants_commands_run_as_shown(tmp_path, monkeypatch):
    """Every command of both paths, in the order a competition needs them:
    the organiser's up to the teams' registration, the participant's (an
    account made in the store, as the sign-up pages make it), then the rest
    of the organiser's; each must exit 0. The competition is the
    README's ``competition.yaml``."""
    import yaml
    from typer.testing import CliRunner

    from ladderboard.cli import app
    from ladderboard.engine import Competitions
    from ladderboard.files.solution import Solution
    from ladderboard.server.local import LocalServer

    labels = [0, 1] * 100
    solution = Solution.from_labels(labels, public_fraction=0.5, random_state=0)
    monkeypatch.chdir(tmp_path)
    for name in ("LADDERBOARD_SERVER", "LADDERBOARD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    Path("solution.csv").write_bytes(solution.to_csv())
    Path("overview.md").write_text("Predict the target of each id.\n")
    Path("train.csv").write_text("id,x,target\n1,0.5,1\n2,0.25,0\n")
    Path("teams.csv").write_text("name,email\nhoneybees,bees@example.org\n")
    (description,) = code_blocks("yaml")
    Path("competition.yaml").write_text(description)
    # The final phase the README creates: its own solution, the same teams.
    Path("final").mkdir()
    Path("final/solution.csv").write_bytes(
        Solution.from_labels(labels[::-1], public_fraction=0.5, random_state=1).to_csv()
    )
    first = yaml.safe_load(description)["slug"]
    Path("final/competition.yaml").write_text(
        f"format: 1\nslug: {first}-final\nsolution: solution.csv\nscore: zero_one\n"
        f"phase_of: {first}\n"
    )
    rows = "".join(f"{i},{y if j % 5 else 1 - y}\n" for j, (i, y) in enumerate(
        zip(solution.ids, labels, strict=True)))  # fmt: skip
    Path("predictions.csv").write_text(f"id,target\n{rows}")

    url = f"sqlite:///{tmp_path / 'ladderboard.db'}"
    runner = CliRunner()
    with LocalServer(url) as server:
        words = {
            "http://127.0.0.1:8000": server.url,
            "ORGANISER_TOKEN": server.admin_token,
            "SLUG": yaml.safe_load(description)["slug"],
            "sqlite:///ladderboard.db": url,
        }
        outputs: dict[str, str] = {}

        def run(command: list[str], role: str) -> None:
            args = [words.get(word, word) for word in command[1:]]
            env = {"XDG_CONFIG_HOME": str(tmp_path / role), "COLUMNS": "200"}
            result = runner.invoke(app, args, env=env)
            assert result.exit_code == 0, f"{shlex.join(command)}:\n{result.output}"
            outputs[" ".join(command[1:3])] = result.output

        registered = next(i for i, c in enumerate(ORGANISER) if c[1:3] == ["team", "import"])
        for command in ORGANISER[: registered + 1]:
            run(command, "organiser")
        with open("tokens.csv", encoding="utf-8") as tokens:
            assert next(csv.DictReader(tokens))["token"]
        # Signing up is the web's (tests/server/test_oidc_sign_in.py and the
        # account pages' tests); the account and its personal token, as there.
        store = Competitions.open(url)
        person = store.accounts.create("bee", email="bee@example.org")
        words["PERSONAL_TOKEN"] = store.accounts.create_token(person.id, "laptop")[1]
        store.engine.dispose()
        for command in PARTICIPANT:
            run(command, "team")
        for command in ORGANISER[registered + 1 :]:
            run(command, "organiser")

    assert list(Path("data").iterdir()), "download wrote no file"
    assert "bumblebees" in outputs["leaderboard SLUG"]
    assert "join-team?code=" in outputs["team invite"]
    assert "verified" in outputs["verify --bundle"], outputs["verify --bundle"]
    assert Path("export/submissions.csv").is_file() and Path("bundle/competition.yaml").is_file()
    store = Competitions.open(url)
    assert [t.name for t in store.teams(f"{first}-final")] == ["honeybees", "bumblebees"]
    assert store.competition(f"{first}-final").config.phase_of == first
    store.engine.dispose()


def test_readme_is_a_landing_page():
    """Under 200 lines, and no sentence of its prose over 60 words."""
    text = README.read_text()
    assert len(text.splitlines()) < 200
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    prose = re.sub(r"^#.*$", "", prose, flags=re.M)
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:-|\d+\.) )", prose):
        for sentence in re.split(r"(?<=[.;!?])\s+(?=[A-Z`(\[])", " ".join(paragraph.split())):
            assert len(sentence.split()) <= 60, sentence
