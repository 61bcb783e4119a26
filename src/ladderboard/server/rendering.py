"""What every page shares: the templates and their filters, the response
headers, the refusals rendered with the API's own status and sentence, and
the organiser's Markdown made safe to show.

Markdown (a competition's overview and rules) is parsed by markdown-it-py with
raw HTML off, then sanitised by nh3 with an allow-list, so no script, event
handler, ``style``, ``javascript:`` or ``data:`` URL survives even if the
parser let one through; links get ``rel="nofollow noopener"``. What a text
renders to is kept (:class:`TextCache`, keyed by the text's SHA-256 and the
options), so a page shows its overview without parsing it again: some texts
within the length allowed take a second or more to parse.

>>> print(markdown("[Rules](/c/x/rules) <script>1</script>"))
<p><a href="/c/x/rules" rel="nofollow noopener">Rules</a> &lt;script&gt;1&lt;/script&gt;</p>
>>> plain_text("# Predict **churn**\\n\\nScored by [AUC](https://example.org).")
'Predict churn. Scored by AUC.'
>>> score(0.123456, 3), score(None, 3), score(float("nan"), 3)
('0.123', '—', 'undefined')
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nh3
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup
from pydantic import ValidationError

from ladderboard.engine.errors import CompetitionError, NotFound
from ladderboard.engine.results import CompetitionInfo
from ladderboard.files.solution import SolutionError
from ladderboard.files.submission import SubmissionError
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import calendar_words, describe, release_words
from ladderboard.rules.text import SAMPLE_SUBMISSION, is_slug
from ladderboard.server.errors import ApiError, sentence, status_of
from ladderboard.server.visibility import NOINDEX, check_view, form_viewer

__all__ = [
    "REFUSALS",
    "STATIC_DIR",
    "TextCache",
    "competition_context",
    "direction_words",
    "find",
    "human_size",
    "markdown",
    "mechanism_summary",
    "not_found",
    "plain_text",
    "refusal",
    "render",
    "score",
    "score_decimals",
    "templates",
    "utc",
]

_HERE = Path(__file__).parent
STATIC_DIR = _HERE / "static"
templates = Jinja2Templates(directory=_HERE / "templates")

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    # Pages can show a team's token (once) or a team's own scores: keep them out of caches.
    "Cache-Control": "no-store",
}


def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The template ``name`` as a page; a page of a competition that is not
    public asks search engines not to index it."""
    response = templates.TemplateResponse(request, name, context, status_code=status)
    response.headers.update(_HEADERS)
    competition = context.get("competition")
    if isinstance(competition, CompetitionInfo) and competition.config.visibility != "public":
        response.headers.update(NOINDEX)
    return response


def refusal(exc: Exception, request: Request | None = None) -> tuple[int, str]:
    """The status and the sentence the API would answer ``exc`` with; its
    code is left in ``request``'s state for the metrics, as
    :func:`~ladderboard.server.errors.respond` leaves it."""
    if isinstance(exc, ApiError):
        code, answer = exc.code, (exc.status, sentence(exc.message))
    elif isinstance(exc, CompetitionError | SubmissionError | SolutionError):
        code, answer = exc.code, (status_of(exc), sentence(str(exc)))
    elif isinstance(exc, ValidationError):
        parts = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3]]
        code, answer = "invalid_request", (422, sentence("; ".join(parts)))
    else:
        raise exc
    if request is not None:
        request.state.error_code = code
    return answer


REFUSALS = (ApiError, CompetitionError, SubmissionError, SolutionError, ValidationError)


def find(request: Request, competitions, slug: str, token: str = "") -> CompetitionInfo | None:
    """The competition ``slug`` if it exists and the request may see it
    (:func:`~ladderboard.server.visibility.check_view`), else ``None``:
    the pages' one way to a competition. ``token`` is a token typed in the
    page's form, which counts as the request's bearer token."""
    who = form_viewer(request, token)  # a blank token: the request's own credentials
    try:
        return check_view(competitions, who, competitions.competition(slug))
    except NotFound:
        return None


def not_found(request: Request, slug: str) -> HTMLResponse:
    """The page of a competition that does not exist, or that the visitor
    may not see (the same page: a private competition does not show it
    exists), with the form a team of a private one signs in with."""
    return render(
        request,
        "message.html",
        404,
        title="Not found",
        message=f"There is no competition {slug!r}.",
        sign_in_slug=slug if is_slug(slug) else None,
    )


# ------------------------------------------------------------------ numbers
def score_decimals(competitions, info: CompetitionInfo) -> int:
    """The decimals every page shows the scores of ``info`` with: the board's
    the decimals the mechanism's releases really carry, at most the
    competition's precision (:meth:`Competitions.decimals
    <ladderboard.engine.Competitions.decimals>`). One function, so that a
    board, a team's page and a submission's result never print the same
    release differently."""
    return competitions.decimals(info)


def score(value: float | None, decimals: int) -> str:
    """A score with ``decimals`` decimals; ``—`` for none, and ``undefined``
    for a metric that has no value on the file (NaN)."""
    if value is None:
        return "—"
    if math.isnan(value):
        return "undefined"
    return f"{value:.{decimals}f}"


def movement(public_rank: int | None, final_rank: int) -> str:
    """How far a team moved from its public rank to its final one, as the
    shake-up column shows it: ``'up 3'``, ``'down 2'``, ``'same'``, or
    ``'new'`` for a team the public board did not rank.

    >>> movement(5, 2), movement(1, 3), movement(4, 4), movement(None, 7)
    ('up 3', 'down 2', 'same', 'new')
    """
    if public_rank is None:
        return "new"
    if public_rank == final_rank:
        return "same"
    moved = public_rank - final_rank
    return f"up {moved}" if moved > 0 else f"down {-moved}"


def human_size(size: int) -> str:
    """A file size for people: ``'812 bytes'``, ``'1.5 KB'``, ``'12.3 MB'`` (powers of 1024).

    >>> human_size(812), human_size(1536), human_size(12_900_000)
    ('812 bytes', '1.5 KB', '12.3 MB')
    """
    if size < 1024:
        return f"{size} byte" + ("" if size == 1 else "s")
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            break
    return f"{value:.1f} {unit}"


def utc(value: datetime | None) -> str:
    """A time to the second, in UTC, saying so.

    >>> from datetime import timedelta, timezone
    >>> utc(datetime(2026, 3, 1, 1, 2, 3, tzinfo=timezone(timedelta(hours=2))))
    '2026-02-28 23:02:03 UTC'
    """
    if value is None:
        return "—"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def until(value: datetime, now: datetime) -> str:
    """How long from ``now`` to ``value``, to the two largest units.

    >>> from datetime import timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> until(t + timedelta(days=2, hours=5, minutes=3), t), until(t + timedelta(seconds=40), t)
    ('2 days 5 h', 'under a minute')
    """
    seconds = int((value - now).total_seconds())
    if seconds < 60:
        return "under a minute"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [
        f"{days} day" + ("" if days == 1 else "s") if days else "",
        f"{hours} h" if hours else "",
        f"{minutes} min" if minutes and not days else "",
    ]
    return " ".join(p for p in parts if p)


# ------------------------------------------------------------- competition
def competition_context(
    competitions, info: CompetitionInfo, tab: str, team: str | None = None
) -> dict[str, Any]:
    """What every competition page's template needs: the competition, the
    current tab, its decimals and direction, where it stands (open, closed,
    published), the team signed in on this browser (``None`` if none) and the
    words for a release (:func:`~ladderboard.rules.explain.release_words`)."""
    now = datetime.now(UTC)
    closed = info.is_closed()  # at the store's time of the read, which decides it
    return {
        "competition": info,
        "tab": tab,
        "decimals": score_decimals(competitions, info),
        "direction": direction_words(info.config),
        "closed": closed,
        "closed_at": (info.closed_at or info.deadline) if closed else None,
        "published": info.is_published(),
        "published_at": info.published_at,
        "signed_in": team,
        "now": now,
        "words": release_words(info.config.mechanism, info.config.board),
        # The calendar: the opening time while it is ahead, the freeze while it holds.
        "not_opened": not info.is_opened(),
        "frozen_since": info.frozen_since(),
        "calendar": calendar_words(info.config),
    }


def direction_words(config: CompetitionConfig) -> str:
    """``'higher is better'`` or ``'lower is better'``, from the score's one direction."""
    return "higher is better" if config.scoring().direction.greater_is_better else "lower is better"


def mechanism_summary(config: CompetitionConfig) -> str:
    """What the board's mechanism does, in one plain sentence, with its parameters."""
    return describe(config.mechanism, config.mechanism_params)


# ----------------------------------------------------------------- Markdown
_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": True}).enable(
    ["table", "strikethrough", "linkify"]
)
_ALIGN = re.compile(r"text-align:(left|right|center)")
_TAGS = {
    "p", "br", "hr", "img", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    clean_content_tags={"script", "style"},
    attributes={
        "a": {"href", "title"},
        "img": {"src", "alt", "title"},
        "ol": {"start"},
    },
    allowed_classes={"th": {"left", "right", "center"}, "td": {"left", "right", "center"}},
    url_schemes={"http", "https", "mailto"},
    link_rel="nofollow noopener",
    strip_comments=True,
)


class TextCache:
    """What texts rendered to, by their SHA-256 and the rendering's options,
    least recently used first out once the results hold more than
    ``max_chars`` characters or there are more than ``max_entries``. The
    key is the content: an edited text is a new key, and the old one ages out.

    >>> cache = TextCache(max_chars=10)
    >>> cache.get("abc", 1, str.upper), cache.get("abc", 1, lambda text: "not called")
    ('ABC', 'ABC')
    """

    def __init__(self, *, max_chars: int = 16_000_000, max_entries: int = 4096) -> None:
        self.max_chars = max_chars
        self.max_entries = max_entries
        self._results: OrderedDict[tuple[str, Any], str] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, text: str, option: Any, render: Callable[[str], Any]) -> Any:
        """``render(text)``, rendered once for each text and ``option``."""
        key = (hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), option)
        with self._lock:
            found = self._results.get(key)
            if found is not None:
                self._results.move_to_end(key)
                return found
        result = render(text)
        with self._lock:
            if key not in self._results and len(result) <= self.max_chars:
                self._results[key] = result
                self._chars += len(result)
                while self._chars > self.max_chars or len(self._results) > self.max_entries:
                    _, dropped = self._results.popitem(last=False)
                    self._chars -= len(dropped)
        return result


_RENDERED = TextCache()


def _tokens(text: str, top: int) -> list[Token]:
    """The parsed tokens, headings moved so the first level used is ``h{top}``
    (the page has its own ``h1``), table alignment as a class (an inline
    ``style`` is refused by the pages' Content-Security-Policy)."""
    tokens = _PARSER.parse(text or "")
    levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open"]
    shift = top - min(levels) if levels else 0
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + shift)}"
        elif token.type in ("th_open", "td_open"):
            found = _ALIGN.search(str(token.attrGet("style") or ""))
            token.attrs.pop("style", None)
            if found:
                token.attrSet("class", found.group(1))
    return tokens


def markdown(text: str, top: int = 2) -> Markup:
    """``text`` (Markdown) as sanitised HTML, its headings starting at ``h{top}``;
    a wide table scrolls in a region of its own, which the keyboard can reach."""
    return _RENDERED.get(text or "", ("html", top), lambda text: _markdown(text, top))


def _markdown(text: str, top: int) -> Markup:
    html = _PARSER.renderer.render(_tokens(text, top), _PARSER.options, {})
    clean = _CLEANER.clean(html)
    clean = clean.replace(
        "<table>", '<div class="scroll" role="region" aria-label="Table" tabindex="0"><table>'
    ).replace("</table>", "</table></div>")
    return Markup(clean)  # sanitised above


def plain_text(text: str, limit: int = 200) -> str:
    """The prose of ``text`` (Markdown) without markup, tables or code blocks,
    cut at a word before ``limit`` characters with an ellipsis: a summary for
    a card. A heading ends as a sentence.

    >>> plain_text("# Flowers\\n\\n| a | b |\\n|-|-|\\n| 1 | 2 |\\n\\nPredict *each* one.")
    'Flowers. Predict each one.'
    """
    return _RENDERED.get(text or "", ("plain", limit), lambda text: _plain_text(text, limit))


def _plain_text(text: str, limit: int) -> str:
    parts: list[str] = []
    in_table = False
    for token in _PARSER.parse(text or ""):
        if token.type in ("table_open", "table_close"):
            in_table = token.type == "table_open"
        elif token.type == "inline" and not in_table:
            for child in token.children or ():
                if child.type in ("text", "code_inline"):
                    parts.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    parts.append(" ")
        elif token.type == "heading_close":
            last = "".join(parts).rstrip()[-1:]
            if last and last not in ".!?:":
                parts.append(".")
        if token.type.endswith("_close"):
            parts.append(" ")
    flat = " ".join("".join(parts).split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:.") + "…"


templates.env.filters.update(
    score=score, markdown=markdown, plain=plain_text, size=human_size, utc=utc
)
templates.env.globals.update(until=until, movement=movement, SAMPLE_SUBMISSION=SAMPLE_SUBMISSION)
