"""The experiment figures of the docs are copied from generated reports, never typed.

``ladderboard experiment run ID --out docs/experiments`` writes
``docs/experiments/ID.md``. In the paragraphs of the Experiments page
(``docs/experiments/index.md``) that name an experiment (its id in
backticks), figures sit between ``<!-- figures: docs/experiments/ID.md -->``
and ``<!-- /figures -->``, a span that links to the report they are quoted
from (the link relative to the page, as the docs site resolves it). A figure is a number with a
decimal point; a setting written ``name = value`` is what the run was told,
not a measurement, and counts (repetitions, budgets) are the settings the
report's command states. Each figure must be one of its report's numbers, and
every "±" must say what it is in its sentence.
"""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "experiments" / "index.md"

SPAN = re.compile(
    r"<!-- figures: (?P<report>\S+) -->(?P<text>.*?)<!-- /figures -->",
    re.S,
)
FIGURE = re.compile(r"(?<![\w.])\d+\.\d+(?!\d)")
SETTING = re.compile(r"=\s*\d+\.\d+")
PLUS_MINUS_LABEL = re.compile(r"Student-t|standard error|standard deviation|\bsd\b")
SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[A-Z`(])")


def figures(text: str) -> list[str]:
    return FIGURE.findall(SETTING.sub("=", text))


def test_figures_are_found_as_written():
    text = "gains 0.023 ± 0.005 at k = 10^4 (0.1/√n, η=0.1/√n, T = 0.04, `e11`, Fig. 2, −0.004)."
    assert figures(text) == ["0.023", "0.005", "0.1", "0.004"]


def spans(section: str) -> list[tuple[str, str]]:
    return [(m["report"], m["text"]) for m in SPAN.finditer(section)]


def names_an_experiment(paragraph: str) -> bool:
    from ladderboard.experiments import EXPERIMENTS

    return any(f"`{name}`" in paragraph for e in EXPERIMENTS.values() for name in e.names)


def unquoted(section: str) -> str:
    """The paragraphs that name an experiment, without their quoted spans."""
    rest = SPAN.sub(" ", section)
    return "\n\n".join(p for p in rest.split("\n\n") if names_an_experiment(p))


SECTION = PAGE.read_text(encoding="utf-8")


def link_to(report: str) -> str:
    """The link to ``report`` (a path from the repository root) from the page."""
    return Path(os.path.relpath(ROOT / report, PAGE.parent)).as_posix()


def test_every_figure_in_the_experiments_page_comes_from_a_report():
    stray = figures(unquoted(SECTION))
    assert not stray, (
        f"figures typed into the Experiments page: {stray}; quote them from "
        "a generated report between <!-- figures: docs/experiments/ID.md --> and "
        "<!-- /figures -->"
    )


def test_the_page_quotes_the_reports_of_e1_e11_and_e13():
    assert {Path(report).stem for report, _ in spans(SECTION)} >= {"e1", "e11", "e13"}


@pytest.mark.parametrize(("report", "text"), spans(SECTION), ids=lambda v: str(v)[:24])
def test_each_quoted_figure_is_in_its_report(report, text):
    path = ROOT / report
    assert path.parent == ROOT / "docs" / "experiments", report
    assert f"]({link_to(report)})" in text, f"the span does not link to {report}"
    in_report = set(figures(path.read_text(encoding="utf-8")))
    missing = [f for f in figures(text) if f not in in_report]
    assert not missing, f"not in {report}: {missing}"


@pytest.mark.parametrize(("report", "text"), spans(SECTION), ids=lambda v: str(v)[:24])
def test_every_plus_minus_says_what_it_is(report, text):
    for sentence in SENTENCE_END.split(" ".join(text.split())):
        if "±" in sentence:
            assert PLUS_MINUS_LABEL.search(sentence), f"a ± that says not what it is: {sentence}"


def test_a_typed_figure_is_caught():
    """The checks themselves: a figure absent from the report, a figure
    outside any span, and an unlabelled ±."""
    section = (
        "# Experiments\n\n`e11` gains <!-- figures: docs/experiments/e11.md -->0.0123456 "
        "([report](e11.md))<!-- /figures --> and 0.019 beyond.\n\n"
        "`--clip 0.01` is a setting of no experiment.\n"
    )
    assert figures(unquoted(section)) == ["0.019"]
    ((report, text),) = spans(section)
    assert f"]({link_to(report)})" in text
    assert "0.0123456" not in figures((ROOT / report).read_text(encoding="utf-8"))
    sentence = "0.004 ± 0.015 beyond."
    assert not PLUS_MINUS_LABEL.search(sentence)
