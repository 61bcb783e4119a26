"""Finding a competition and a team by name, with the refusal the web edge
shows when there is none, and the frozen view of a competition's row."""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import CompetitionInfo, aware
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.text import TEAM_NAME_CHARS, check_text, is_slug
from ladderboard.store import queries
from ladderboard.store.models import CompetitionRow, TeamRow

__all__ = ["competition", "config", "info", "refuse_impossible", "team"]


def refuse_impossible(slug: str, team: str | None = None) -> None:
    """:class:`NotFound` for a slug or team name no row can have (PostgreSQL
    would fail on a NUL in the query instead of finding nothing)."""
    if not is_slug(slug):
        raise NotFound(f"no competition {str(slug)[:80]!r}")
    if team is not None:
        try:
            check_text("team name", team, max_chars=TEAM_NAME_CHARS)
        except (TypeError, ValueError):
            raise NotFound(f"no team {str(team)[:120]!r} in competition {slug!r}") from None


def competition(session: Session, slug: str) -> CompetitionRow:
    refuse_impossible(slug)
    row = queries.competition_by_slug(session, slug)
    if row is None:
        raise NotFound(f"no competition {slug!r}")
    return row


def team(session: Session, competition_row: CompetitionRow, name: str) -> TeamRow:
    refuse_impossible(competition_row.slug, name)
    row = queries.team_by_name(session, competition_row.id, name)
    if row is None:
        raise NotFound(f"no team {name!r} in competition {competition_row.slug!r}")
    return row


def info(row: Any, read_at: datetime | None = None) -> CompetitionInfo:
    """The view of a competition's row (a :class:`CompetitionRow` or a row
    with its attribute names) read at the store's time ``read_at``."""
    return CompetitionInfo(
        slug=row.slug,
        title=row.title,
        description=row.description,
        config=config(row.config),
        created_at=aware(row.created_at),
        deadline=aware(row.deadline),
        closed_at=aware(row.closed_at),
        n_public=row.n_public,
        n_private=row.n_private,
        commitment=row.commitment,
        rules=row.rules or "",
        published_at=aware(row.key_revealed_at),
        read_at=aware(read_at),
    )


def config(stored: dict[str, Any]) -> CompetitionConfig:
    """The configuration stored as ``stored``, checked once per process for
    each distinct one and shared (read-only) by every reader: every read of
    a competition and every submission's target needs it, and checking it
    (the mechanism, the score and its parameters) costs several times its
    read. Its deadline can change (:meth:`Competitions.update
    <ladderboard.engine.Competitions.update>`), so it is looked up by its
    whole content."""
    return _checked_config(json.dumps(stored, sort_keys=True))


@functools.lru_cache(maxsize=256)
def _checked_config(text: str) -> CompetitionConfig:
    return CompetitionConfig.from_json(json.loads(text))
