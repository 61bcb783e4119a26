"""The "How this leaderboard works" page: one section for every mechanism a
competition can run (a new one without its section fails here), each saying what
is released, when a score changes, what a per-rank board shows and how the
final ranking is made, and citing its paper."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

import ladderboard
from ladderboard.mechanisms import COMPETITION_MECHANISMS

jinja2 = pytest.importorskip("jinja2")

TEMPLATES = Path(ladderboard.__file__).parent / "server" / "templates"
HEADINGS = (
    "What is released",
    "When your score changes, and why",
    "On a per-rank board",
    "The final ranking",
)


def _how_render() -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    env.globals["url_for"] = lambda name, path: SimpleNamespace(path=f"/{name}/{path}")
    return env.get_template("how.html").render(mechanisms=sorted(COMPETITION_MECHANISMS.items()))


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

    html = _how_render()
    parser = Balance()
    parser.feed(html)
    assert parser.open == []
    assert len(parser.ids) == len(set(parser.ids)), "ids are unique"
    assert "<title>How this leaderboard works · ladderboard</title>" in html
