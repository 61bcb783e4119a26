"""The audit after the key is revealed, and what-if rescoring under another
mechanism.

:func:`verify` checks the published commitment against the stored solution,
split and (revealed) key, then runs every stored submission file again, in
each board's order, through a fresh mechanism keyed as the live one was, and
compares every released score bit for bit, every decision, every private
score and each board's final state; and it checks the public board read from
the stored team standings against the board of the submissions. Each
version of the solution a correction replaced is checked the same way: its
commitment, and its releases run again on it.
:func:`rescore` scores the same files under another configuration without
touching the store (:func:`what_if`: the same board with the configuration
it ran and the decimals to show it with).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ladderboard._blas import on_one_blas_thread
from ladderboard.engine import instances, lookup
from ladderboard.engine.competitions import Competitions
from ladderboard.engine.errors import VerificationError
from ladderboard.engine.lifecycle import runnable
from ladderboard.engine.rerun import (
    AuditedSubmission,
    check_commitment,
    draws_note,
    rerun,
    scores_of_file,
)
from ladderboard.engine.results import BoardRow, aware
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.mechanisms import MECHANISMS
from ladderboard.random import KeyedStream
from ladderboard.rules.boards import (
    Record,
    Standing,
    final_selection,
    private_board,
    public_board,
    rank_standings,
    ranked,
)
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import display_decimals
from ladderboard.store import corrections as stored_corrections
from ladderboard.store import queries
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.blobs import unpack

__all__ = ["Compared", "VerifyReport", "WhatIf", "rescore", "verify", "what_if"]


@dataclass(frozen=True)
class Compared:
    """A what-if row beside its team's row on the live board (``None`` when
    the team is not on it)."""

    row: BoardRow
    live: BoardRow | None

    @property
    def moved(self) -> int | None:
        """The places the team gains on the what-if board (negative: loses
        them); ``None`` when it is not on the live board."""
        return None if self.live is None else self.live.rank - self.row.rank


@dataclass(frozen=True)
class WhatIf:
    """A what-if board (:func:`what_if`): its rows, the configuration it was
    scored under (every mechanism parameter written out) and the decimals
    its scores are shown with; and the live board of the same standings
    (public or private), read in the same call, with its decimals."""

    rows: list[BoardRow]
    config: CompetitionConfig
    decimals: int
    live: list[BoardRow]
    live_decimals: int

    def compared(self) -> list[Compared]:
        """Each what-if row beside its team's live row."""
        live = {row.team: row for row in self.live}
        return [Compared(row, live.get(row.team)) for row in self.rows]


@dataclass(frozen=True)
class VerifyReport:
    slug: str
    commitment: str
    submissions: int
    scopes: int
    corrections: int = 0  # earlier versions of the solution checked as well
    draws: str | None = None  # the versions the draws were made with, and this check's


@on_one_blas_thread
def verify(
    competitions: Competitions,
    slug: str,
    *,
    key_hex: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> VerifyReport:
    """Run every stored file of ``slug`` again and raise
    :class:`VerificationError` on any difference from what was stored.

    ``key_hex`` is the revealed key; without it the stored key is used (the
    organiser's own check). ``progress(done, total)``, when given, is called
    after each file run again.
    """
    with Session(competitions.reader) as session:
        row = queries.competition_by_slug(session, slug)
        if row is None:
            raise VerificationError(f"no competition {slug!r}")
        key = key_hex or row.secret_key
        solution_bytes = unpack(queries.solution_file(session.connection(), row.id))
        mismatch = check_commitment(
            solution_bytes, key, row.commitment, "the stored solution, split and key"
        )
        if mismatch is not None:
            raise VerificationError(mismatch)
        config = CompetitionConfig.from_json(row.config)
        rows = queries.files_by_board(session, row.id)
        submissions = [AuditedSubmission.stored(sub, unpack(file)) for sub, file in rows]
        states = {
            scope: StoredArrays().fill(session.connection(), row.id, state)
            for scope, state in queries.board_states(session, row.id)
        }
        commitment = row.commitment
        recorded = [sub.draw_versions for sub, _ in rows]
        earlier = _earlier_versions(session, row, key, [(sub, file) for sub, file in rows])
    result = rerun(
        Solution.from_csv(solution_bytes),
        config,
        key,
        submissions,
        states=states,
        progress=progress,
    )
    problems = [*earlier.problems, *result.problems]
    kept = competitions.leaderboard(slug, organiser=True)
    if kept != competitions.leaderboard_from_submissions(slug):
        problems.append("the public board of the stored standings differs from its submissions'")
    note = draws_note(config, recorded, failed=bool(result.problems))
    if note is not None and note[1]:
        problems.append(note[0])
    if problems:
        shown = "\n".join(problems[:20])
        more = f"\n… and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise VerificationError(f"{len(problems)} difference(s) in {slug!r}:\n{shown}{more}")
    return VerifyReport(
        slug,
        commitment,
        result.submissions,
        len(result.scopes),
        earlier.versions,
        None if note is None else note[0],
    )


@dataclass(frozen=True)
class _Earlier:
    problems: list[str]
    versions: int


def _earlier_versions(
    session: Session, row: Any, key: str, rows: list[tuple[Any, bytes]]
) -> _Earlier:
    """Check each version of the solution a correction replaced
    (:mod:`~ladderboard.engine.corrections`): its commitment against its
    solution file, split and ``key`` (a correction keeps the key), the
    chain of commitments from the first to the current one, and its
    releases run again bit for bit on its solution, each board from its
    first submission up to those made before the correction."""
    connection = session.connection()
    found = stored_corrections.corrections(connection, row.id)
    problems: list[str] = []
    config = CompetitionConfig.from_json(row.config)
    for i, correction in enumerate(found):
        number = correction.number
        following = found[i + 1].old_commitment if i + 1 < len(found) else row.commitment
        if correction.new_commitment != following:
            problems.append(
                f"correction {number}: its new commitment {correction.new_commitment} is not "
                f"the one that follows it, {following}"
            )
        old_file = unpack(stored_corrections.correction_file(connection, correction.id))
        where = f"the solution correction {number} replaced, its split and the key"
        try:
            mismatch = check_commitment(old_file, key, correction.old_commitment, where)
        except ValueError as exc:  # a stored file that is no solution
            mismatch = f"its solution file cannot be read: {exc}"
        if mismatch is not None:
            problems.append(f"correction {number}: {mismatch}")
            continue
        releases = stored_corrections.correction_releases(connection, correction.id)
        subs = [
            AuditedSubmission.stored(sub, unpack(file), scores=old, label=f"correction {number}, ")
            for sub, file in rows
            if (old := releases.get(sub.id)) is not None
        ]
        result = rerun(Solution.from_csv(old_file), config, key, subs)
        problems.extend(result.problems)
    return _Earlier(problems, len(found))


@on_one_blas_thread
def what_if(
    competitions: Competitions,
    slug: str,
    *,
    mechanism: str,
    mechanism_params: dict[str, Any] | None = None,
    board: str = "public",
    mode: str = "per-team",
    ranks: int | None = None,
    score: str | None = None,
    score_params: dict[str, Any] | None = None,
    random_state: Any = 0,
) -> WhatIf:
    """The board ``slug`` would have shown under another mechanism (or
    score), with the configuration it ran; :func:`rescore` gives its rows
    alone. The submissions scored again in the order they were made. The
    live board, its states and its releases are untouched.

    ``mode`` is the board of the rescoring: ``"per-team"`` (a mechanism per
    team) or ``"per-rank"`` (the top ``ranks`` positions, default the
    competition's, as :class:`~ladderboard.rules.rank_board.RankBoard`
    runs them live); ``board`` says which standings to return, ``"public"``
    (as released) or ``"private"``. ``score`` and ``score_params`` default
    to the competition's (another score starts from no parameters). The
    configuration is checked as a competition's creation checks it, with the
    same messages (:func:`~ladderboard.engine.lifecycle.runnable`), and the
    mechanism's parameters left out take the defaults a new competition
    would. Its streams are keyed by ``random_state``, never by the
    competition's secret key: a deterministic mechanism (the parameter-free
    ladder, say) under the competition's own configuration gives the live
    board back, a noisy one a board of other draws.

    What it costs: every stored file is read, parsed and scored again, one
    after the other (the competition's whole history, as :func:`verify`
    does), in the calling thread; a server runs it off its event loop.

    Raises :class:`ValueError` for a configuration that cannot run on the
    competition's solution, and for a stored file the other score cannot
    read (naming the submission); :class:`NotFound` for no such competition.
    """
    if board not in ("public", "private"):
        raise ValueError(f"board must be 'public' or 'private', got {board!r}")
    if mode not in ("per-team", "per-rank"):
        raise ValueError(f"mode must be 'per-team' or 'per-rank', got {mode!r}")
    info = competitions.competition(slug)
    own = info.config.to_json()
    if score is None or score == own["score"]:
        score, score_params = (
            own["score"],
            own["score_params"] if score_params is None else score_params,
        )
    config = CompetitionConfig.from_json(
        {
            **own,
            "mechanism": mechanism,
            "mechanism_params": dict(mechanism_params or {}),
            "score": score,
            "score_params": dict(score_params or {}),
            "board": mode,
            "ranks": info.config.ranks if ranks is None else ranks,
        }
    )
    solution = competitions.solution(slug)
    key = KeyedStream.from_random_state(random_state).key_hex
    config = runnable(config.explicit(solution.n_public), solution, key)
    with Session(competitions.reader) as session:
        competition_id = lookup.competition(session, slug).id
        subs = queries.files_in_order(session, competition_id)
        # The board names a submission by its team's own number, not its id.
        numbers = {r.id: r.number for r in queries.submissions_with_team(session, competition_id)}
    # The live board as the files were read (a file sent since is on neither).
    live = competitions.leaderboard(slug, board, organiser=True)
    fresh, load = instances.factory(key, config, solution)
    mechanisms: dict[str, Any] = {}
    rank_state = None
    records: list[Record[datetime]] = []
    for sequence, (ident, created_at, file, selected, team, team_id) in enumerate(subs, 1):
        try:
            scored = scores_of_file(solution, config, unpack(file))
        except SubmissionError as exc:
            raise ValueError(
                f"submission {numbers[ident]} of team {team!r} cannot be scored by "
                f"{config.score!r}: {exc}"
            ) from None
        if mode == "per-rank":
            released, improved, rank_state = instances.submit_per_rank(
                rank_state,
                fresh,
                load,
                team_id,
                sequence,
                scored.public_input,
                size=config.ranks,
            )
        else:
            if team not in mechanisms:
                mechanisms[team] = fresh(f"whatif:{team}")
            release = mechanisms[team].submit(scored.public_input)
            released, improved = release.score, release.improved
        records.append(
            Record(ident, team, aware(created_at), released, scored.private, selected, improved)
        )
    direction = config.scoring().direction
    standings: Sequence[Standing[datetime | None, int | None]]
    if board == "private":
        # Each team's own choice, or the automatic one under the what-if
        # mechanism's decisions.
        picked = final_selection(
            records,
            config.n_selections,
            direction=direction,
            by_decision=MECHANISMS[mechanism].release_is_current_best,
        )
        records = [dataclasses.replace(r, selected=r.id in picked) for r in records]
        standings = private_board(records, direction=direction)
    elif mode == "per-rank":
        names = {team_id: team for *_, team, team_id in subs}
        standings = rank_standings(rank_state["entries"] if rank_state else [], names, records)
    else:
        standings = public_board(
            records,
            direction=direction,
            release_is_current_best=MECHANISMS[mechanism].release_is_current_best,
            release_hides_decision=MECHANISMS[mechanism].release_hides_decision,
        )
    resolution = fresh("resolution").resolution
    return WhatIf(
        ranked(standings, numbers),
        config,
        display_decimals(resolution, config.precision),
        live=live,
        live_decimals=competitions.decimals(info),
    )


def rescore(
    competitions: Competitions,
    slug: str,
    *,
    mechanism: str,
    mechanism_params: dict[str, Any] | None = None,
    board: str = "public",
    mode: str = "per-team",
    ranks: int | None = None,
    score: str | None = None,
    score_params: dict[str, Any] | None = None,
    random_state: Any = 0,
) -> list[BoardRow]:
    """The rows of :func:`what_if`'s board: the board ``slug`` would have
    shown under another mechanism (or score), the live one untouched.

    A board run with full disclosure, rescored under the parameter-free
    Ladder (Blum & Hardt 2015, Algorithm 2):

    >>> from ladderboard.engine import Competitions
    >>> from ladderboard.files.solution import Solution
    >>> store = Competitions.open("sqlite://")
    >>> solution = Solution.from_labels([0, 1] * 50, public_fraction=0.5, random_state=0)
    >>> _ = store.create("demo", solution, CompetitionConfig(
    ...     score="zero_one", mechanism="full-disclosure"))
    >>> _ = store.add_team("demo", "alpha")
    >>> _ = store.submit("demo", "alpha", solution.sample_submission_csv(fill=1.0))
    >>> board = rescore(store, "demo", mechanism="parameter-free-ladder")
    >>> [(r.rank, r.team, r.score) for r in board]
    [(1, 'alpha', 0.5)]
    """
    return what_if(
        competitions,
        slug,
        mechanism=mechanism,
        mechanism_params=mechanism_params,
        board=board,
        mode=mode,
        ranks=ranks,
        score=score,
        score_params=score_params,
        random_state=random_state,
    ).rows
