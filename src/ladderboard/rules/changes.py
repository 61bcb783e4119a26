"""The settings an organiser may change while a competition runs, the ones
fixed at its creation, and each change in the plain words the Rules page
shows.

A running competition's limits (quotas, final selections, the largest file,
the decimals shown, automatic publication) and its deadline and texts may
change: each applies from its change on, never to what was already
submitted. What gives a released score its meaning (the score, the
mechanism and its parameters, the board and its ranks) is fixed at creation
(Blum & Hardt 2015 and Hardt 2017 bound a board's error for one mechanism
run from the first submission on; a change midway would leave earlier
releases measured on another scale).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "ANY_TIME",
    "CALENDAR",
    "CORRECTION",
    "EDITABLE",
    "FIXED",
    "TEXTS",
    "SettingChange",
    "change_words",
]

EDITABLE = (
    "daily_quota",
    "total_quota",
    "invalid_quota",
    "n_selections",
    "max_bytes",
    "precision",
    "auto_publish",
    "visibility",
    "registration",
    "max_team_size",
    "merger_deadline",
)
"""The configuration's settings that change while the competition is open
(and the visibility, at any time)."""

ANY_TIME = ("late_submissions", "visibility")
"""The settings that change even after the close: whether late files are
taken, and who sees the competition."""

CALENDAR = ("opens_at", "freeze_at", "late_submissions")
"""The calendar's settings: the opening time and the freeze change while
they are still to come, whether late files are taken at any time."""

FIXED = ("score", "score_params", "mechanism", "mechanism_params", "board", "ranks", "phase_of")
"""The configuration's settings fixed when the competition is created (and
the series a phase belongs to)."""

TEXTS = ("title", "description", "rules")
"""What teams read, changed at any time, even after the close."""

CORRECTION = "solution"
"""The history's name of a correction of the solution
(:mod:`ladderboard.engine.corrections`): its old value holds the replaced
commitment, its new one the new commitment and the reason."""

_LABELS = {
    "daily_quota": ("Daily quota", "submissions"),
    "total_quota": ("Total quota", "submissions"),
    "invalid_quota": ("Invalid-file cap", "refused files"),
    "n_selections": ("Final selections", "submissions"),
    "max_bytes": ("Largest file", ""),
    "precision": ("Decimals shown", ""),
    "auto_publish": ("Private board published at the deadline", ""),
    "deadline": ("Deadline", ""),
    "opens_at": ("Opening time", ""),
    "freeze_at": ("Public board frozen from", ""),
    "late_submissions": ("Late submissions after the publication", ""),
    "visibility": ("Visibility", ""),
    "registration": ("Registration", ""),
    "max_team_size": ("Largest team", "members"),
    "merger_deadline": ("Team merger deadline", ""),
    "title": ("Title", ""),
    "description": ("Overview", ""),
    "rules": ("Rules", ""),
}


def _size(n: int) -> str:
    """>>> _size(50 * 2**20), _size(1536), _size(10)
    ('50 MiB', '1.5 KiB', '10 bytes')"""
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def _value(setting: str, value: Any) -> str:
    if setting in ("auto_publish", "late_submissions"):
        return "yes" if value else "no"
    if setting in ("deadline", "opens_at", "freeze_at", "merger_deadline"):
        if value is None:
            return "none"
        return f"{datetime.fromisoformat(value):%Y-%m-%d %H:%M} UTC"
    if setting == "title":
        return repr(value)
    if value is None:
        return "no limit"
    return _size(value) if setting == "max_bytes" else str(value)


def change_words(setting: str, old: Any, new: Any) -> str:
    """A change of ``setting`` from ``old`` to ``new`` (as stored: JSON) in
    plain words; a text's change says only that it was edited.

    >>> change_words("daily_quota", 5, 3)
    'Daily quota: 5 → 3 submissions'
    >>> change_words("n_selections", 2, 1)
    'Final selections: 2 → 1 submission'
    >>> change_words("total_quota", None, 40)
    'Total quota: no limit → 40 submissions'
    >>> change_words("max_bytes", 50 * 2**20, 10 * 2**20)
    'Largest file: 50 MiB → 10 MiB'
    >>> change_words("deadline", "2030-01-01T12:00:00+00:00", None)
    'Deadline: 2030-01-01 12:00 UTC → none'
    >>> change_words("late_submissions", False, True)
    'Late submissions after the publication: no → yes'
    >>> change_words("visibility", "public", "private")
    'Visibility: public → private'
    >>> change_words("max_team_size", None, 4)
    'Largest team: no limit → 4 members'
    >>> change_words("rules", None, None)
    'Rules: edited'
    >>> change_words("solution", {"commitment": "ab12"}, {"commitment": "cd34", "reason": "row 7"})
    'Solution corrected (row 7): commitment ab12 → cd34'
    """
    if setting == "solution":
        return (
            f"Solution corrected ({new['reason']}): "
            f"commitment {old['commitment']} → {new['commitment']}"
        )
    label, unit = _LABELS.get(setting, (setting, ""))
    if setting in ("description", "rules"):
        return f"{label}: edited"
    before, after = _value(setting, old), _value(setting, new)
    if unit and old is not None and new is not None:
        return f"{label}: {before} → {after} {_counted(unit, new)}"
    if unit:
        before += "" if old is None else f" {_counted(unit, old)}"
        after += "" if new is None else f" {_counted(unit, new)}"
    return f"{label}: {before} → {after}"


def _counted(unit: str, n: int) -> str:
    """``unit`` (a plural) as it reads after the number ``n``."""
    return unit.removesuffix("s") if n == 1 else unit


@dataclass(frozen=True)
class SettingChange:
    """One change of a competition's setting: when (UTC), which, its value
    before and after (as stored, JSON; ``None`` for a text's), and who
    made it (``None`` when not known)."""

    at: datetime
    setting: str
    old: Any
    new: Any
    actor: str | None = None

    @property
    def words(self) -> str:
        """The change in plain words (:func:`change_words`)."""
        return change_words(self.setting, self.old, self.new)
