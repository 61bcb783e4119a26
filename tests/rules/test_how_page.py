"""The "How this leaderboard works" page: one section for every mechanism a
competition can run (a new one without its section fails here), each opening
with a sentence in plain words, then saying what is released, when a score
changes and what a per-rank board shows, and citing its paper; the final
ranking, the same for every mechanism, once. Reached from a competition, the
page puts that competition's mechanism first, then the final ranking, then the
others."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

import ladderboard
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.mechanisms.traits import competition_cards

jinja2 = pytest.importorskip("jinja2")

TEMPLATES = Path(ladderboard.__file__).parent / "server" / "templates"
HEADINGS = (
    "What is released",
    "When your score changes, and why",
    "On a per-rank board",
)
# Words a participant may not know: the first sentence about a mechanism has none of them.
JARGON = (
    "test", "paired", "bootstrap", "bayes", "significan", "noise", "laplace", "alpha", "eta",
    "α", "η", "&", "√", "1/n", "statistic", "variance", "resampl", "holdout", "sample", "odds",
    "threshold", "distribution", "privacy", "overfit",
)  # fmt: skip


def _how_render(**context) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    env.globals["url_for"] = lambda name, path: SimpleNamespace(path=f"/{name}/{path}")
    context = {"competition": None, "settings": None, "unknown": None} | context
    return env.get_template("how.html").render(cards=competition_cards(), **context)


def _how_sections(html: str) -> dict[str, str]:
    return dict(re.findall(r'<section id="([\w-]+)"[^>]*>(.*?)</section>', html, flags=re.S))


@pytest.mark.parametrize("name", sorted(COMPETITION_MECHANISMS))
def test_how_page_has_a_section_for_each_mechanism(name):
    html = _how_render()
    sections = _how_sections(html)
    assert name in sections, f"add <section id={name!r}> to server/templates/how.html"
    section = sections[name]
    for heading in HEADINGS:
        assert f"<h3>{heading}</h3>" in section, (name, heading)
    assert re.search(r"\b20(15|16|17)\b", section), f"the section of {name} must cite its paper"
    assert f'<a href="#{name}">' in html
    assert "final ranking" not in section.lower(), "the final ranking has a section of its own"


@pytest.mark.parametrize("name", sorted(COMPETITION_MECHANISMS))
def test_how_page_opens_each_mechanism_in_plain_words(name):
    section = _how_sections(_how_render())[name]
    first = re.search(r"</h2>\s*<p[^>]*>(.*?)</p>", section, flags=re.S)
    assert first, f"the section of {name} opens with a paragraph under its title"
    sentence = re.split(r"(?<=[.;])\s", unescape(first.group(1)))[0]
    words = sentence.lower()
    assert not [w for w in JARGON if w in words], (name, sentence)
    assert len(sentence) > 40, (name, sentence)


def test_how_page_explains_the_final_ranking_once():
    html = _how_render()
    assert html.count("The private board decides the competition.") == 1
    assert html.count("The final ranking</h") == 1
    sections = list(_how_sections(html))
    assert sections[-1] == "final-ranking"
    assert '<a href="#final-ranking">' in html


def _competition(mechanism: str, board: str = "per-team") -> SimpleNamespace:
    config = SimpleNamespace(mechanism=mechanism, board=board, ranks=10)
    return SimpleNamespace(slug="flowers", title="Flowers & <Co>", config=config)


@pytest.mark.parametrize("name", sorted(COMPETITION_MECHANISMS))
def test_how_page_from_a_competition_puts_its_mechanism_first(name):
    html = _how_render(competition=_competition(name), settings="Its own settings.")
    sections = _how_sections(html)
    others = [other for other in sorted(COMPETITION_MECHANISMS) if other != name]
    assert list(sections)[:3] == [name, "final-ranking", "other-mechanisms"]
    assert sorted(list(sections)[3:]) == others
    assert html.count("The private board decides the competition.") == 1
    own = sections[name]
    assert "Its own settings." in own and "Per-team: each team is compared with its own best" in own
    # The plain sentence comes before the settings, which may name a test or noise.
    assert own.index('class="gist"') < own.index("Its own settings.")
    assert "<h3>On a per-rank board</h3>" not in own  # not this competition's board
    assert html.index('href="/c/flowers">Flowers &amp; &lt;Co&gt;</a>') < html.index(f'id="{name}"')
    nav = re.search(r'<nav aria-label="Other mechanisms">(.*?)</nav>', html, flags=re.S)
    assert nav and re.findall(r'href="#([\w-]+)"', nav.group(1)) == [
        other for other in sections if other in others
    ]


def test_how_page_from_a_per_rank_competition_says_what_its_board_shows():
    html = _how_render(competition=_competition("ladder", "per-rank"), settings="Step 0.01.")
    own = _how_sections(html)["ladder"]
    assert "<h3>On a per-rank board</h3>" in own
    assert "Per-rank, 10 ranks for all teams" in own


def test_how_page_for_an_unknown_competition_explains_every_mechanism():
    html = _how_render(unknown="nope<b>")
    assert "There is no competition nope&lt;b&gt;" in html
    names = set(_how_sections(html)) - {"final-ranking"}
    assert names == set(COMPETITION_MECHANISMS)


def test_how_page_has_no_section_for_what_is_not_registered():
    names = set(_how_sections(_how_render())) - {"final-ranking"}
    assert names == set(COMPETITION_MECHANISMS)


def test_how_page_is_well_formed():
    class Balance(HTMLParser):
        VOID = frozenset({"meta", "link", "br", "img", "input", "hr"})

        def __init__(self):
            super().__init__()
            self.open: list[str] = []
            self.ids: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.ids += [value for key, value in attrs if key == "id"]
            if tag not in self.VOID:
                self.open.append(tag)

        def handle_endtag(self, tag):
            assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
            self.open.pop()

    for html in (
        _how_render(),
        _how_render(competition=_competition("shaky-ladder"), settings="Its settings."),
    ):
        parser = Balance()
        parser.feed(html)
        assert parser.open == []
        assert len(parser.ids) == len(set(parser.ids)), "ids are unique"
        assert "<title>How this leaderboard works · ladderboard</title>" in html
