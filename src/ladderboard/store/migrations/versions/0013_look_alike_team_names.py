"""Team names unique under a key that also folds look-alike letters.

``teams.name_key`` becomes the SHA-256 of the name under compatibility
decomposition, without invisible characters (format characters, fillers,
variation selectors), with the Greek and Cyrillic letters that look like
Latin ones taken as those, case folded and composed again
(:func:`ladderboard.rules.text.name_key`): ``Alpha`` spelt with a Greek
``Α``, a Cyrillic ``а`` or a zero-width space is the same team as ``Alpha``.

Every existing team's key is set again under that definition, written out
here as it is now so that the migration does the same thing whatever later
code says. Two existing teams whose names now collide both stay: as in
0005, the later team's key is made unique by its id (the engine refuses
such a pair from now on). Keys are first set to values no key takes, so that
no update meets a key another team holds only until its own update.
Downgrading sets the keys of revision 0005 again, by the same rules.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

import hashlib
import re
import unicodedata
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_FILLERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")
_SELECTORS = re.compile("[\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_LATIN_LOOK_ALIKES = str.maketrans(
    "\u037f\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"
    "\u03a5\u03a7\u03b1\u03b3\u03b9\u03bd\u03bf\u03c1\u03c3\u03c5\u03d2\u03dc\u03e8"
    "\u03f1\u03f2\u03f3\u03f9\u03fa\u0405\u0406\u0408\u0410\u0412\u0415\u0417\u041a"
    "\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425\u042c\u0430\u0431\u0433\u0435"
    "\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u0461\u0474\u0475\u04ae\u04af"
    "\u04bb\u04bd\u04c0\u04cf\u04e0\u0501\u050c\u051b\u051c\u051d",
    "JABEZHIKMNOPTYXayivopouYF2pcjCMSIJABE3KMHOPCTYXba6reopcyxsijwVvYyheIi3dGqWw",
)


def _invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf" or char in _FILLERS


def _skeleton(name: str) -> str:
    text = _SELECTORS.sub("", unicodedata.normalize("NFKD", name))
    text = "".join(c for c in text if not _invisible(c)).translate(_LATIN_LOOK_ALIKES)
    text = unicodedata.normalize("NFKD", text.casefold()).translate(_LATIN_LOOK_ALIKES)
    return unicodedata.normalize("NFKC", text)


def _folded(name: str) -> str:
    # The key of revision 0005: NFKC and case folding.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _set_keys(form: Callable[[str], str]) -> None:
    bind = op.get_bind()
    teams = bind.execute(
        sa.text("SELECT id, competition_id, name, name_key FROM teams ORDER BY id")
    ).all()
    seen: set[tuple[int, str]] = set()
    changed: dict[int, str] = {}
    for team_id, competition_id, name, old in teams:
        key = hashlib.sha256(form(name).encode("utf-8")).hexdigest()
        if (competition_id, key) in seen:
            key = hashlib.sha256(f"{key}:{team_id}".encode()).hexdigest()
        seen.add((competition_id, key))
        if key != old:
            changed[team_id] = key
    update = sa.text("UPDATE teams SET name_key = :key WHERE id = :id")
    for team_id in changed:  # a key no SHA-256 in hex is: it has a '-'
        bind.execute(update, {"key": f"moving-{team_id}", "id": team_id})
    for team_id, key in changed.items():
        bind.execute(update, {"key": key, "id": team_id})


def upgrade() -> None:
    _set_keys(_skeleton)


def downgrade() -> None:
    _set_keys(_folded)
