"""A competition's life: created from a solution, edited while it runs, closed,
its private board published (by the organiser, or by its deadline when it
publishes automatically); and what it is read as meanwhile."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ladderboard.engine import instances, lookup, phases
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
from ladderboard.rules.changes import ANY_TIME, CALENDAR, EDITABLE, FIXED, SettingChange
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
from ladderboard.store import phases as phase_rows
from ladderboard.store.blobs import pack, unpack
from ladderboard.store.clock import store_time
from ladderboard.store.setting_changes import (
    add_setting_changes,
    setting_changes,
    teams_selecting_more_than,
)

__all__ = ["UNCHANGED", "Lifecycle", "runnable"]


UNCHANGED: Any = object()
"""What :meth:`Lifecycle.update` leaves as it was when not given."""


def runnable(config: CompetitionConfig, solution: Solution, key_hex: str) -> CompetitionConfig:
    """``config`` as a competition over ``solution`` runs it: checked that
    its score can use the solution's targets and that its mechanism can be
    built with its parameters, and the defaults a later release may choose
    again written out as they settle now. Raises :class:`ValueError` (the
    messages a competition's creation and a what-if rescoring both give)."""
    try:
        check_targets(config.scoring(), solution.targets)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the solution cannot be scored by {config.score!r}: {exc}") from None
    fresh, _ = instances.factory(key_hex, config, solution)
    try:
        checked = fresh("check")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"mechanism {config.mechanism!r}: {exc}") from exc
    settled = checked.get_params()
    pinned = {
        name: settled[name]
        for name in type(checked).pinned_defaults
        if config.mechanism_params.get(name) is None  # absent, or null: the default
    }
    if not pinned:
        return config
    return dataclasses.replace(config, mechanism_params={**config.mechanism_params, **pinned})


def _as_json(value: Any) -> Any:
    """``value`` as the store keeps it (a deadline in ISO 8601, tuples as
    lists), so that a setting given as it is compares equal."""
    if isinstance(value, datetime):
        return value.isoformat()
    return json.loads(json.dumps(value))


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

        A configuration with ``phase_of`` makes the competition a later
        phase of that competition's series (:mod:`ladderboard.engine.phases`):
        it gets a row for each of the first phase's teams, and its stored
        ``phase_of`` names the first phase.

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
        self._check_calendar_ahead(config)
        files_checked = checked_files(files, self.context.clock())
        config = config.explicit(solution.n_public)
        if config.phase_of is not None:
            try:
                with Session(self.context.reader) as session:
                    first_slug = phases.series_of(session, config.phase_of).slug
            except NotFound:
                raise ValueError(
                    f"there is no competition {config.phase_of!r} for this one to be a phase of"
                ) from None
            config = dataclasses.replace(config, phase_of=first_slug)
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
        # A bad score or bad parameters fail here, before anything is stored.
        config = runnable(config, solution, row.secret_key)
        row.config = config.to_json()
        shared = BOARD_SCOPE if config.board == "per-rank" else None
        try:
            with self.context.transaction() as session:
                first = None
                if config.phase_of is not None:
                    # Under the first phase's lock, which a new team takes
                    # too: the phase gets a row for every team, none missed.
                    first, _ = self.context.locked(session, config.phase_of)
                    row.first_phase_id = first.id
                queries.add_competition(session, row, pack(solution_bytes), shared)
                store_files(session, row, files_checked, replace=False)
                if first is not None:
                    homes = queries.teams(session, first.id)
                    phases.mirror_teams(session, row, homes, row.created_at)
        except IntegrityError as exc:
            raise Conflict(f"a competition {slug!r} already exists") from exc
        return lookup.info(row)

    def _check_deadline(self, deadline: datetime | None) -> None:
        if deadline is not None and deadline <= self.context.clock():
            raise ValueError(
                f"the deadline {deadline:%Y-%m-%d %H:%M} UTC is in the past: choose a later one"
            )

    def _check_calendar_ahead(self, config: CompetitionConfig) -> None:
        """A new competition's opening time and freeze, as its deadline,
        are to come: a time already past would open it or freeze its board
        before anything happened, which an edit refuses too."""
        for name, words in (("opens_at", "opening time"), ("freeze_at", "freeze")):
            value = getattr(config, name)
            if value is not None and value <= self.context.clock():
                raise ValueError(
                    f"the {words} {value:%Y-%m-%d %H:%M} UTC is in the past: choose a later one"
                )

    def update(
        self,
        slug: str,
        *,
        title: str | None = None,
        description: str | None = None,
        rules: str | None = None,
        deadline: datetime | str | None = _UNCHANGED,
        actor: str | None = None,
        **settings: Any,
    ) -> CompetitionInfo:
        """Edit what the organiser may change while the competition runs,
        and record each change (:meth:`history`, dated by the engine's
        clock, by ``actor``). What is not given, or given as it is, stays
        as it was and is not recorded.

        - The title, overview and rules change at any time, even after the
          close; the history records that a text changed, and the title's
          old and new words.
        - While the competition is open: its deadline (in the future, or
          ``None`` for none) and the settings of
          :data:`~ladderboard.rules.changes.EDITABLE` (``daily_quota``,
          ``total_quota``, ``invalid_quota`` (each ``None`` for no limit),
          ``n_selections``, ``max_bytes``, ``precision``,
          ``auto_publish``), checked as at creation
          (:class:`CompetitionConfig`). A limit applies from now on to
          what is left: a daily quota lowered below what a team used today
          leaves it none for today, and takes back nothing submitted. A
          file-size limit applies to the next file.
        - ``n_selections`` lowered below what a team has already selected is
          refused, naming the teams: their choice is theirs to change
          (nothing drops a selection behind a team's back).
        - The calendar (:data:`~ladderboard.rules.changes.CALENDAR`,
          :meth:`_check_calendar`): the opening time and the freeze, each
          while it is still in the future; whether late files are taken, at
          any time, even after the close.
        - The settings of :data:`~ladderboard.rules.changes.FIXED` (the
          score, the mechanism and their parameters, the board and its
          ranks) never change: a released score means what they made it
          mean, and the audit replays every release under them.

        Raises :class:`ValueError` for a bad value (the messages of
        creation), :class:`CompetitionClosed` for a change of anything but
        the texts once the competition is closed, and :class:`Conflict` for
        a fixed setting or selections that do not fit; a refusal writes
        nothing."""
        unknown = sorted(set(settings) - set(EDITABLE) - set(CALENDAR) - set(FIXED))
        if unknown:
            raise ValueError(
                f"no setting {', '.join(map(repr, unknown))} to change; "
                f"the settings that change are {', '.join(EDITABLE + CALENDAR)}"
            )
        if title is not None:
            check_text("title", title, max_chars=TITLE_CHARS)
        for field, text in (("description", description), ("rules", rules)):
            if text is not None:
                check_text(field, text, max_chars=DESCRIPTION_CHARS, multiline=True)
        with self.context.transaction() as session:
            competition, store_now = self.context.locked(session, slug)
            config = CompetitionConfig.from_json(competition.config)
            fixed = [
                name
                for name in FIXED
                if name in settings and _as_json(settings[name]) != _as_json(getattr(config, name))
            ]
            if fixed:
                raise Conflict(
                    f"the {', '.join(fixed)} of competition {slug!r} cannot change: they are "
                    "fixed at its creation, as every released score means what they made it "
                    "mean; create a new competition to use others"
                )
            changed = {
                name: settings[name]  # in one order, whatever the caller's
                for name in EDITABLE
                if name in settings and _as_json(settings[name]) != _as_json(getattr(config, name))
            }
            if deadline is not self._UNCHANGED:
                changed = {"deadline": deadline, **changed}
            changed |= self._check_calendar(
                config, store_now, slug, {n: settings[n] for n in CALENDAR if n in settings}
            )
            new_config = dataclasses.replace(config, **changed)  # checked as at creation
            changed = {
                name: getattr(new_config, name)
                for name in changed
                if _as_json(getattr(new_config, name)) != _as_json(getattr(config, name))
            }
            closed_out = [name for name in changed if name not in ANY_TIME]
            if closed_out and lookup.info(competition).is_closed(store_now):
                raise CompetitionClosed(
                    f"competition {slug!r} is closed: its {', '.join(closed_out)} cannot change "
                    f"(only its title, overview, rules, {' and '.join(_words(ANY_TIME))} can)"
                )
            if "deadline" in changed:
                self._check_deadline(new_config.deadline)
            if new_config.n_selections < config.n_selections:
                self._check_selections(session, competition, new_config.n_selections)
            history = [
                (name, _as_json(getattr(config, name)), _as_json(value))
                for name, value in changed.items()
            ]
            texts = self._edit_texts(competition, title, description, rules)
            if changed:
                competition.config = new_config.to_json()
                competition.deadline = new_config.deadline
                competition.settings_version += 1
                session.flush()
                # A kept board may hold what the settings decided (the final
                # selection of a team that selected nothing): built again.
                statements.bump_board_version(session.connection(), competition.id, reset=True)
            add_setting_changes(
                session, competition.id, self.context.clock(), texts + history, actor
            )
            return lookup.info(competition)

    @staticmethod
    def _edit_texts(
        competition: CompetitionRow,
        title: str | None,
        description: str | None,
        rules: str | None,
    ) -> list[tuple[str, Any, Any]]:
        """Write the texts given; the history's entries of those that
        changed (a title's words, an overview's or rules' change alone)."""
        changes: list[tuple[str, Any, Any]] = []
        if title is not None and (title.strip() or competition.slug) != competition.title:
            new_title = title.strip() or competition.slug
            changes.append(("title", competition.title, new_title))
            competition.title = new_title
        if description is not None and description != competition.description:
            changes.append(("description", None, None))
            competition.description = description
        if rules is not None and rules != (competition.rules or ""):
            changes.append(("rules", None, None))
            competition.rules = rules
        return changes

    @staticmethod
    def _check_selections(session: Session, competition: CompetitionRow, limit: int) -> None:
        """Refuse a limit of final selections below what a team selected."""
        over = teams_selecting_more_than(session, competition.id, limit)
        if over:
            shown = ", ".join(repr(name) for name in over[:10])
            more = f" and {len(over) - 10} more" if len(over) > 10 else ""
            raise Conflict(
                f"{len(over)} team{'s' if len(over) > 1 else ''} ({shown}{more}) selected more "
                f"than {limit} final submissions: each must select at most {limit} first, "
                "or keep the limit as it is"
            )

    def history(self, slug: str) -> list[SettingChange]:
        """The changes of the competition's settings and texts since its
        creation, oldest first (:meth:`update`)."""
        with self.context.reader.connect() as connection, Session(bind=connection) as session:
            competition = lookup.competition(session, slug)
            rows = setting_changes(connection, competition.id)
        return [
            SettingChange(aware(row.changed_at), row.setting, row.old, row.new, row.actor)
            for row in rows
        ]

    @staticmethod
    def _check_calendar(
        config: CompetitionConfig, store_now: datetime, slug: str, changes: dict[str, Any]
    ) -> dict[str, Any]:
        """``changes`` of the calendar (``opens_at``, ``freeze_at``,
        ``late_submissions``), checked: the opening time or the freeze
        changes while the stored one is still in the future at the store's
        time, to a time in the future or ``None``; an opening time not set
        cannot be set (the competition opened at its creation). Whether late
        files are taken may change at any time. :class:`CompetitionClosed`
        past the time, :class:`ValueError` for a time in the past or out of
        order (the order is :class:`CompetitionConfig`'s)."""
        if not changes:
            return changes
        wanted = dataclasses.replace(config, **changes)  # parsed, and checked in order
        changed = {
            name: getattr(wanted, name)
            for name in changes
            if getattr(wanted, name) != getattr(config, name)  # given as it is: no change
        }
        words = {"opens_at": "opening time", "freeze_at": "freeze"}
        for name in sorted(set(changed) & set(words)):
            stored, value = getattr(config, name), changed[name]
            if stored is None and name == "opens_at":
                raise CompetitionClosed(
                    f"competition {slug!r} is open, with no opening time: an opening time "
                    "only moves while it is still to come"
                )
            if stored is not None and stored <= store_now:
                raise CompetitionClosed(
                    f"competition {slug!r} has passed its {words[name]}: it cannot change"
                )
            if value is not None and value <= store_now:
                raise ValueError(
                    f"the {words[name]} {value:%Y-%m-%d %H:%M} UTC is in the past: "
                    "choose a later one"
                )
        return changed

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

    def phases(self, slug: str) -> list[CompetitionInfo]:
        """The phases of the series competition ``slug`` belongs to, the
        first phase first (:mod:`ladderboard.engine.phases`); a competition
        of its own is its one phase."""
        store_now = self.context.store_now() or self.context.clock()
        with Session(self.context.reader) as session:
            first = phases.first_phase(session, lookup.competition(session, slug))
            rows = [first, *phase_rows.later_phases(session, first.id)]
            return [lookup.info(row, store_now) for row in rows]

    def solution(self, slug: str) -> Solution:
        """The organiser's solution (labels)."""
        with Session(self.context.reader) as session:
            row = lookup.competition(session, slug)
            return self.context.caches.solutions.lookup(
                row.id, row.solution_sha256, session.connection()
            )

    def solution_file(self, slug: str) -> bytes:
        """The organiser's solution file as stored: the bytes whose SHA-256
        the commitment holds, so that the competition can be made again
        with the same solution and split."""
        with Session(self.context.reader) as session:
            row = lookup.competition(session, slug)
            return unpack(queries.solution_file(session.connection(), row.id))

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


def _words(settings: tuple[str, ...]) -> list[str]:
    """Settings' names as a sentence reads them.

    >>> _words(("late_submissions", "visibility"))
    ['late submissions', 'visibility']
    """
    return [name.replace("_", " ") for name in settings]
