"""A competition's life: created from a solution, edited while it runs, closed,
its private board published (by the organiser, or by its deadline when it
publishes automatically); and what it is read as meanwhile."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import instances, lookup
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import CompetitionClosed, Conflict, NotFound
from ladderboard.engine.results import (
    BOARD_SCOPE,
    CompetitionInfo,
    aware,
    commitment_of,
)
from ladderboard.engine.stored_files import checked_files, store_files
from ladderboard.files.solution import Solution
from ladderboard.random import KeyedStream
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import display_decimals
from ladderboard.rules.scoring import check_targets
from ladderboard.rules.text import (
    DESCRIPTION_CHARS,
    TITLE_CHARS,
    check_slug,
    check_text,
)
from ladderboard.store import (
    CompetitionRow,
    queries,
    statements,
)
from ladderboard.store.blobs import pack
from ladderboard.store.clock import store_time

__all__ = ["UNCHANGED", "Lifecycle"]


UNCHANGED: Any = object()
"""What :meth:`Lifecycle.update` leaves as it was when not given."""


class Lifecycle:
    """Creating, editing, closing and publishing competitions, over ``context``."""

    _UNCHANGED: Any = UNCHANGED

    def __init__(self, context: EngineContext) -> None:
        self.context = context

    def create(
        self,
        slug: str,
        solution: Solution,
        config: CompetitionConfig,
        *,
        title: str | None = None,
        description: str = "",
        rules: str = "",
        files: Sequence[tuple[str, bytes]] = (),
        random_state: Any = None,
    ) -> CompetitionInfo:
        """Create a competition; its commitment is in the returned info.
        ``description`` (the overview) and ``rules`` are Markdown; ``files``
        are data files for the participants, stored with it or not at all.

        The stored configuration names every parameter of the mechanism with
        the value it runs with: those ``config`` leaves out are the
        recommended setting's on the recommended mechanism
        (:meth:`ladderboard.recommended.Recommended.fill`, at the solution's
        public size), else the mechanism's own defaults, and a default that
        follows from the holdout size is stored as it settles now. A board is
        thus read, replayed and audited from what is stored alone, whatever
        later releases choose as defaults.

        Raises :class:`ValueError` for a bad slug, title or text, a deadline
        already past, a solution the score cannot use or bad mechanism
        parameters (nothing is stored), and :class:`Conflict` when the slug
        is taken."""
        check_slug(slug)
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
        check_text("description", description, max_chars=DESCRIPTION_CHARS, multiline=True)
        check_text("rules", rules, max_chars=DESCRIPTION_CHARS, multiline=True)
        self._check_deadline(config.deadline)
        files_checked = checked_files(files, self.context.clock())
        config = config.explicit(solution.n_public)
        stream = KeyedStream.from_random_state(random_state)
        solution_bytes = solution.to_csv()
        solution_sha256 = hashlib.sha256(solution_bytes).hexdigest()
        split = solution.split_sha256
        row = CompetitionRow(
            slug=slug,
            title=title or slug,
            description=description,
            rules=rules,
            config=config.to_json(),
            created_at=self.context.clock(),
            deadline=config.deadline,
            closed_at=None,
            solution_sha256=solution_sha256,
            split_sha256=split,
            secret_key=stream.key_hex,
            commitment=commitment_of(solution_sha256, split, stream.key_hex),
            n_public=solution.n_public,
            n_private=solution.n_private,
        )
        try:
            check_targets(config.scoring(), solution.targets)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the solution cannot be scored by {config.score!r}: {exc}") from None
        # Build one mechanism now, so that bad parameters fail before anything is stored.
        fresh, _ = instances.factory(row.secret_key, config, solution)
        try:
            checked = fresh("check")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"mechanism {config.mechanism!r}: {exc}") from exc
        # Defaults that a later release may choose again are stored as they settle now.
        settled = checked.get_params()
        pinned = {
            name: settled[name]
            for name in type(checked).pinned_defaults
            if config.mechanism_params.get(name) is None  # absent, or null: the default
        }
        if pinned:
            config = dataclasses.replace(
                config, mechanism_params={**config.mechanism_params, **pinned}
            )
            row.config = config.to_json()
        shared = BOARD_SCOPE if config.board == "per-rank" else None
        try:
            with self.context.transaction() as session:
                queries.add_competition(session, row, pack(solution_bytes), shared)
                store_files(session, row, files_checked, replace=False)
        except IntegrityError as exc:
            raise Conflict(f"a competition {slug!r} already exists") from exc
        return lookup.info(row)

    def _check_deadline(self, deadline: datetime | None) -> None:
        if deadline is not None and deadline <= self.context.clock():
            raise ValueError(
                f"the deadline {deadline:%Y-%m-%d %H:%M} UTC is in the past: choose a later one"
            )

    def update(
        self,
        slug: str,
        *,
        title: str | None = None,
        description: str | None = None,
        rules: str | None = None,
        deadline: datetime | str | None = _UNCHANGED,
        opens_at: datetime | str | None = _UNCHANGED,
        freeze_at: datetime | str | None = _UNCHANGED,
        late_submissions: bool | None = None,
    ) -> CompetitionInfo:
        """Edit what the organiser may change while the competition runs: its
        title, overview and rules (any time), and its deadline (while it is
        open: a deadline in the future, or ``None`` for none). What is not
        given stays as it was. The mechanism, the score and the quotas stay
        fixed: changing them would change the meaning of released scores.

        The calendar (:meth:`_edit_calendar`): the opening time and the
        freeze, each while it is still in the future, and whether late
        files are taken, at any time."""
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
        for field, text in (("description", description), ("rules", rules)):
            if text is not None:
                check_text(field, text, max_chars=DESCRIPTION_CHARS, multiline=True)
        with self.context.transaction() as session:
            competition, store_now = self.context.locked(session, slug)
            if deadline is not self._UNCHANGED:
                if lookup.info(competition).is_closed(store_now):
                    raise CompetitionClosed(
                        f"competition {slug!r} is closed: its deadline cannot change"
                    )
                config = dataclasses.replace(
                    CompetitionConfig.from_json(competition.config),
                    deadline=deadline,  # type: ignore[arg-type]  # __post_init__ parses a string
                )
                self._check_deadline(config.deadline)
                competition.config = config.to_json()
                competition.deadline = config.deadline
            calendar = {"opens_at": opens_at, "freeze_at": freeze_at}
            self._edit_calendar(competition, store_now, calendar, late_submissions)
            if title is not None:
                competition.title = title.strip() or competition.slug
            if description is not None:
                competition.description = description
            if rules is not None:
                competition.rules = rules
            return lookup.info(competition)

    def _edit_calendar(
        self,
        competition: CompetitionRow,
        store_now: datetime,
        dates: dict[str, Any],
        late_submissions: bool | None,
    ) -> None:
        """Change the opening time or the freeze (``dates``, each left
        as it is when :data:`UNCHANGED`) while the stored one is still in the
        future at the store's time, to a time in the future or ``None``; an
        opening time not set cannot be set (the competition opened at its
        creation). ``late_submissions``, when given, may change at any time.
        :class:`CompetitionClosed` past the time, :class:`ValueError` for a
        time in the past or out of order."""
        changes: dict[str, Any] = {n: v for n, v in dates.items() if v is not self._UNCHANGED}
        if late_submissions is not None:
            changes["late_submissions"] = late_submissions
        if not changes:
            return
        config = CompetitionConfig.from_json(competition.config)
        words = {"opens_at": "opening time", "freeze_at": "freeze"}
        for name in set(changes) & set(words):
            stored = getattr(config, name)
            if (stored is None and name == "opens_at") or (
                stored is not None and stored <= store_now
            ):
                raise CompetitionClosed(
                    f"competition {competition.slug!r} has passed its {words[name]}: "
                    "it cannot change"
                )
        config = dataclasses.replace(config, **changes)
        for name in set(changes) & set(words):
            value = getattr(config, name)
            if value is not None and value <= store_now:
                raise ValueError(
                    f"the {words[name]} {value:%Y-%m-%d %H:%M} UTC is in the past: "
                    "choose a later one"
                )
        competition.config = config.to_json()
        # The targets of this process hold the configuration: read them afresh.
        self.context.caches.targets.clear()

    def competition(self, slug: str) -> CompetitionInfo:
        lookup.refuse_impossible(slug)
        with self.context.reader.connect() as connection:
            row = queries.competition_info(connection, slug, self.context.store_now())
        if row is None:
            raise NotFound(f"no competition {slug!r}")
        info = lookup.info(row, row.read_at)
        if info.read_at is not None and info.publication_due(info.read_at):
            return self.publish_due(slug)
        return info

    def competitions(self) -> list[CompetitionInfo]:
        with Session(self.context.reader) as session:
            return [lookup.info(row) for row in queries.competitions(session)]

    def solution(self, slug: str) -> Solution:
        """The organiser's solution (labels)."""
        with Session(self.context.reader) as session:
            row = lookup.competition(session, slug)
            return self.context.caches.solutions.lookup(
                row.id, row.solution_sha256, session.connection()
            )

    def decimals(self, info: CompetitionInfo) -> int:
        """The decimals a board shows: those the mechanism's releases really
        carry (a Shaky Ladder on a 1/16 grid shows two, not five), at most
        the competition's ``precision``."""
        config = info.config
        key = (info.commitment, config.mechanism, repr(config.mechanism_params), config.precision)
        found = self.context.caches.decimals.get(key)
        if found is None:
            # The resolution depends on the parameters and n, not on the key.
            fresh, _ = instances.factory("0" * 32, info.config, self.solution(info.slug))
            found = display_decimals(fresh("resolution").resolution, info.config.precision)
            self.context.caches.decimals[key] = found
        return found

    def columns(self, slug: str) -> tuple[str, tuple[str, ...]]:
        """The id column and the target columns a submission must have."""
        solution = self.solution(slug)
        return solution.id_column, solution.target_columns

    def close(self, slug: str) -> CompetitionInfo:
        """Close now (or write the close of a deadline passed). Nothing else
        is written: a team's ``selected`` files stay its own choice, and the
        final selection (its choice, or the automatic one) follows from what
        the store holds, which no longer changes. Idempotent.

        The competition's row is locked first, as a submission's last write
        locks it: a submission that wrote before is committed, and read by
        the final selection; one that writes after finds the close and is
        refused (:data:`~ladderboard.store.statements.BUMP_IF_OPEN`). A
        close past the deadline (by the store's time) is dated at it."""
        with self.context.transaction() as session:
            competition, now = self.context.locked(session, slug)
            if competition.closed_at is not None:
                return lookup.info(competition)
            if competition.deadline is not None and now > aware(competition.deadline):
                now = aware(competition.deadline)
            competition.closed_at = now
            session.flush()
            statements.bump_board_version(session.connection(), competition.id, reset=True)
            return lookup.info(competition)

    def publish(self, slug: str) -> CompetitionInfo:
        """Publish the private board and reveal the audit key, once the
        competition is closed (by hand or by its deadline, which this
        finalises); idempotent. Until then only the organiser sees the
        private board, to look it over first. Under the lock the close
        takes, as :meth:`close`; the deadline by the store's time."""
        with self.context.transaction() as session:
            competition, now = self.context.locked(session, slug)
            if competition.key_revealed_at is not None:
                return lookup.info(competition)
            if not lookup.info(competition).is_closed(now):
                raise CompetitionClosed(
                    f"competition {slug!r} is open: close it before publishing its private board"
                )
            if competition.closed_at is None:  # its deadline passed: close it now
                competition.closed_at = aware(competition.deadline)
            competition.key_revealed_at = now
            session.flush()
            statements.bump_board_version(session.connection(), competition.id, reset=True)
            return lookup.info(competition)

    def publish_due(self, slug: str) -> CompetitionInfo:
        """Publish a competition that publishes automatically, its deadline
        past by the store's time: the close and the publication, dated at the
        deadline, written under the lock the close takes (:meth:`publish`). Whichever engine
        reads it first
        writes it; until then no engine shows the private board, and from
        then every engine refuses submissions: what one host shows as
        published no host still accepts a file for."""
        with self.context.transaction() as session:
            competition, store_now = self.context.locked(session, slug)
            info = lookup.info(competition, store_now)
            if not info.publication_due(store_now):  # written meanwhile
                return info
            if competition.closed_at is None:
                competition.closed_at = aware(competition.deadline)
            competition.key_revealed_at = aware(competition.deadline)
            session.flush()
            statements.bump_board_version(session.connection(), competition.id, reset=True)
            return lookup.info(competition, store_now)

    def published_now(self, session: Session, competition: CompetitionRow) -> bool:
        """Whether ``competition`` (read without a lock) is published, or
        due to be by the store's time (then it is written now)."""
        info = lookup.info(competition)
        if info.is_published() or not info.config.auto_publish or info.deadline is None:
            return info.is_published()
        store_now = store_time(session.connection(), self.context.store_now())
        return info.publication_due(store_now) and self.publish_due(info.slug).is_published()

    def reveal_key(self, slug: str) -> str:
        """The random-stream key, for audit, once the private board is
        published. A read: it writes nothing."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            if not self.published_now(session, competition):
                raise CompetitionClosed(
                    "the key is revealed when the organiser publishes the private board"
                )
            return competition.secret_key
