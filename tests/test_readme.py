"""The README's commands and example are what a newcomer runs: keep them true."""

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SETUP = [
    'pip install -e ".[all]" && ladderboard demo',
    'pip install -e ".[all,test]" && pytest',
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


def test_readme_has_its_four_examples():
    assert len(code_blocks("python")) == 4


@pytest.mark.parametrize(
    ("example", "lines"), list(zip(code_blocks("python"), (5, 3, 2, 1), strict=False))
)
def test_readme_example_prints_what_it_says(example, lines):
    expected = printed_output(example)
    assert len(expected) == lines
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {})
    assert out.getvalue().splitlines() == expected
