"""What text the engine accepts, checked once for every store.

PostgreSQL cannot store a NUL character in text and enforces the lengths of
``VARCHAR`` columns, SQLite stores both silently; neither can encode a lone
surrogate (which a JSON ``"\\ud800"`` escape produces). So every text field
is checked here, before the database, and refused the same way on both:

- slugs are ASCII letters, digits, ``-`` and ``_`` (1-64): no look-alike
  slugs from other scripts;
- one-line fields (a title, a team's name, an idempotency key) have no
  control character at all, and no invisible one: no format character
  (Unicode category Cf: zero-width spaces and joiners, the soft hyphen, the
  byte-order mark, bidirectional overrides) and no filler (the combining
  grapheme joiner, the Hangul fillers), which make two names that look
  alike differ, or reorder what is shown; multi-line ones (a description,
  a submission's message) may have tabs and line breaks;
- none has a surrogate, and each has a maximum length in characters;
- JSON options (a mechanism's or a score's parameters) are flat: nested at
  most :data:`MAX_JSON_DEPTH` levels, their keys and strings checked as text.

A refusal names the field and the first offending character by its code
point, never the character itself, so a log line or an error page never
carries a raw control character.

Team names are unique under :func:`name_key`: compatibility normalisation,
case folding, and the Greek and Cyrillic letters that look like Latin ones
taken as those, so that ``Zoe``, ``ZOE``, the decomposed and composed forms
of ``Zoë``, and ``Alpha`` spelt with a Greek ``Α`` or a Cyrillic ``а`` are
one team.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = [
    "DESCRIPTION_CHARS",
    "FILE_NAME_CHARS",
    "IDEMPOTENCY_KEY_CHARS",
    "LATIN_LOOK_ALIKES",
    "MAX_JSON_DEPTH",
    "MESSAGE_CHARS",
    "SAMPLE_SUBMISSION",
    "SLUG_CHARS",
    "SUBMITTED_NAME_CHARS",
    "TEAM_NAME_CHARS",
    "TITLE_CHARS",
    "check_file_name",
    "check_json",
    "check_slug",
    "check_text",
    "is_slug",
    "name_key",
    "printable",
    "submitted_file_name",
]

SLUG_CHARS = 64
TITLE_CHARS = 200
TEAM_NAME_CHARS = 100
MESSAGE_CHARS = 2000
IDEMPOTENCY_KEY_CHARS = 200
DESCRIPTION_CHARS = 100_000
FILE_NAME_CHARS = 100
SUBMITTED_NAME_CHARS = 255  # the name a refused file was sent under, as stored
SAMPLE_SUBMISSION = (
    "sample_submission.csv"  # generated from the solution; no data file takes its name
)
MAX_JSON_DEPTH = 4

_SLUG = re.compile(rf"[A-Za-z0-9_-]{{1,{SLUG_CHARS}}}\Z")
_LINE_BREAKS = frozenset("\t\n\r")
# Invisible characters that are not format characters (Cf): the combining
# grapheme joiner, the Hangul fillers, the Khmer inherent vowels.
_FILLERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")
# What name_key drops besides format characters and fillers: variation
# selectors, which an emoji may carry and which change no letter.
_SELECTORS = re.compile("[\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef]")

# The Greek and Cyrillic letters (and Coptic Hori) whose prototype in
# Unicode's confusables.txt (UTS #39, the table of its skeleton) is one Latin
# letter or digit, each beside that prototype: ``Α`` (Greek) and ``А``
# (Cyrillic) are ``A``. The data is the one the ``confusable_homoglyphs``
# package ships; the package itself is not used, as it answers whether a
# string mixes scripts, not the skeleton a key needs. TS #39 maps the capital
# letters shaped like ``I`` (Greek Iota, Cyrillic I and Palochka) to ``l``,
# which looks like ``I``; here they are ``I``, as name_key also folds case.
# Look-alikes within Latin (``l``, ``I`` and ``1``; ``rn`` and ``m``) and
# those of other scripts are not folded.
LATIN_LOOK_ALIKES = str.maketrans(
    "\u037f\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"
    "\u03a5\u03a7\u03b1\u03b3\u03b9\u03bd\u03bf\u03c1\u03c3\u03c5\u03d2\u03dc\u03e8"
    "\u03f1\u03f2\u03f3\u03f9\u03fa\u0405\u0406\u0408\u0410\u0412\u0415\u0417\u041a"
    "\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425\u042c\u0430\u0431\u0433\u0435"
    "\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u0461\u0474\u0475\u04ae\u04af"
    "\u04bb\u04bd\u04c0\u04cf\u04e0\u0501\u050c\u051b\u051c\u051d",
    "JABEZHIKMNOPTYXayivopouYF2pcjCMSIJABE3KMHOPCTYXba6reopcyxsijwVvYyheIi3dGqWw",
)


def is_slug(value: object) -> bool:
    """Whether ``value`` is a valid slug.

    >>> is_slug("titanic-2026"), is_slug("z\\u043e"), is_slug("a" * 65), is_slug("")
    (True, False, False, False)
    """
    return isinstance(value, str) and _SLUG.match(value) is not None


def check_slug(value: object) -> str:
    """``value`` if it is a slug, else :class:`ValueError`.

    >>> check_slug("a b")
    Traceback (most recent call last):
    ValueError: slug must be 1-64 ASCII letters, digits, '-' or '_', got 'a b'
    """
    if not is_slug(value):
        raise ValueError(
            f"slug must be 1-{SLUG_CHARS} ASCII letters, digits, '-' or '_', "
            f"got {str(value)[:80]!r}"
        )
    return value  # type: ignore[return-value]


def _invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf" or char in _FILLERS


def _refused_char(value: str, multiline: bool) -> tuple[int, str] | None:
    for position, char in enumerate(value):
        category = unicodedata.category(char)
        if category == "Cs" or (category == "Cc" and not (multiline and char in _LINE_BREAKS)):
            return position, char
        if not multiline and _invisible(char):
            return position, char
    return None


def _kind(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cs":
        return "surrogate"
    return "control character" if category == "Cc" else "invisible character"


def check_text(field: str, value: object, *, max_chars: int, multiline: bool = False) -> str:
    """``value`` if it is text the store can keep in ``field``, else :class:`ValueError`.

    >>> check_text("title", "A\\x00B", max_chars=200)
    Traceback (most recent call last):
    ValueError: title contains the control character U+0000 at position 2; it is not allowed
    >>> check_text("message", "line 1\\nline 2", max_chars=20, multiline=True)
    'line 1\\nline 2'
    >>> check_text("title", "x" * 201, max_chars=200)
    Traceback (most recent call last):
    ValueError: title is 201 characters long; at most 200 are allowed
    >>> check_text("team name", "Al\u200bpha", max_chars=100)
    Traceback (most recent call last):
    ValueError: team name contains the invisible character U+200B at position 3; it is not allowed
    """
    if not isinstance(value, str):
        raise TypeError(f"{field} must be text, got {type(value).__name__}")
    if len(value) > max_chars:
        raise ValueError(
            f"{field} is {len(value)} characters long; at most {max_chars} are allowed"
        )
    found = _refused_char(value, multiline)
    if found is not None:
        position, char = found
        raise ValueError(
            f"{field} contains the {_kind(char)} U+{ord(char):04X} at position {position + 1}; "
            "it is not allowed"
        )
    return value


def check_json(field: str, value: Any, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``value`` if it is JSON of at most ``max_depth`` levels whose keys and
    strings are storable text, else :class:`ValueError`.

    >>> check_json("params", {"eta": 0.01, "grid": [1, 2]})
    {'eta': 0.01, 'grid': [1, 2]}
    >>> check_json("params", {"a": [[[[1]]]]})
    Traceback (most recent call last):
    ValueError: params is nested more than 4 levels deep
    """
    # An explicit stack: a recursive walk would itself overflow on deep input.
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth > max_depth:
                raise ValueError(f"{field} is nested more than {max_depth} levels deep")
            if isinstance(item, dict):
                for key in item:
                    if not isinstance(key, str):
                        raise ValueError(f"{field} has a key that is not text: {key!r}")
                    check_text(f"a key of {field}", key, max_chars=100)
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str):
            check_text(f"a value of {field}", item, max_chars=10_000)
        elif item is not None and not isinstance(item, bool | int | float):
            raise ValueError(f"{field} holds a {type(item).__name__}, which is not JSON")
    return value


_FILE_NAME = re.compile(rf"[A-Za-z0-9_-][A-Za-z0-9._-]{{0,{FILE_NAME_CHARS - 1}}}\Z")


def check_file_name(value: object) -> str:
    """A data file's name: 1-100 letters, digits, '.', '-' or '_', not
    starting with '.', and not the generated sample submission's.

    >>> check_file_name("train.csv.gz")
    'train.csv.gz'
    >>> check_file_name("../solution.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a file name is 1-100 letters, digits, '.', '-' or '_', not starting ...
    """
    if not isinstance(value, str) or not _FILE_NAME.match(value):
        raise ValueError(
            f"a file name is 1-{FILE_NAME_CHARS} letters, digits, '.', '-' or '_', not starting "
            f"with '.': {printable(value, 120)!r}"
        )
    if value == SAMPLE_SUBMISSION:
        raise ValueError(f"{SAMPLE_SUBMISSION} is generated from the solution; choose another name")
    return value


def name_key(name: str) -> str:
    """The form under which team names must be unique: compatibility
    decomposition (NFKD), invisible characters dropped, Greek and Cyrillic
    look-alikes taken as the Latin letters they look like
    (:data:`LATIN_LOOK_ALIKES`), case folded, and composed again (NFKC).

    The look-alikes are folded before and after the case: ``В`` (Cyrillic)
    looks like ``B``, while its small form ``в`` looks like no Latin letter.

    >>> name_key("Zoe\\u0308") == name_key("ZO\\u00cb") == name_key("zo\\u00eb")
    True
    >>> name_key("\\uff21lpha")  # a full-width A
    'alpha'
    >>> name_key("\\u0391lpha"), name_key("\\u0430lpha"), name_key("Al\\u00adpha")
    ('alpha', 'alpha', 'alpha')
    """
    text = _SELECTORS.sub("", unicodedata.normalize("NFKD", name))
    text = "".join(c for c in text if not _invisible(c)).translate(LATIN_LOOK_ALIKES)
    text = unicodedata.normalize("NFKD", text.casefold()).translate(LATIN_LOOK_ALIKES)
    return unicodedata.normalize("NFKC", text)


def printable(value: object, limit: int = 200) -> str:
    """``value`` as text with control characters and surrogates escaped, for
    messages and logs, cut to ``limit`` characters.

    >>> printable("/api/a\\x00b\\x1b[31m")
    '/api/a\\\\x00b\\\\x1b[31m'
    """
    text = value if isinstance(value, str) else repr(value)
    if _refused_char(text, multiline=False) is not None:
        text = "".join(
            c.encode("unicode_escape").decode("ascii")
            if unicodedata.category(c) in ("Cc", "Cs") or _invisible(c)
            else c
            for c in text
        )
    return text if len(text) <= limit else text[: limit - 1] + "…"


def submitted_file_name(value: str | None) -> str | None:
    """The name a submission file was sent under, as a list of refused files
    shows it: its last path component (a browser may send the whole path),
    control characters escaped, at most :data:`SUBMITTED_NAME_CHARS`
    characters; None for none or a blank one. It is the team's own label
    for its file, so it is kept as sent rather than refused.

    >>> submitted_file_name("C:\\\\runs\\\\final.csv"), submitted_file_name("a/b\\n.csv")
    ('final.csv', 'b\\\\n.csv')
    >>> submitted_file_name("  "), submitted_file_name(None)
    (None, None)
    """
    if not value:
        return None
    name = value.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return printable(name, SUBMITTED_NAME_CHARS) if name else None
