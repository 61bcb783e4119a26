"""Replaying a history under a mechanism, with one board per team (Ladder §2.1, §6).

Each file is read and scored once (:func:`score_history`): its per-row losses
on the public and on the private rows are kept, and, when a metric-based
mechanism runs, its predictions. Every mechanism then runs over the stored
vectors (:func:`replay_mechanism`): one instance per team, fed the team's
submissions in submission order, public rows only.

The boards (what the Ladder paper recomputes in Sec. 6):

- a team's *public* entry is what its board shows at the close: its latest
  release under a mechanism whose releases state the current best (the
  ladders), its best release under full disclosure (Kaggle);
- the submission behind that entry is the team's *selection*: the first one
  released at the score its board shows at the close (ladders), or the one
  with the best release, the earliest among equals (Kaggle). This is the
  submission a team guided by the public board would pick, and the paper's
  "private score" of a team is that submission's score on the private rows;
- both boards rank teams by score (lower is better for a loss), ties going to
  the selection submitted first. It is the rule of the live boards
  (:mod:`ladderboard.rules.boards`).

Losses outside ``[0, 1]`` are rescaled into it by their declared bounds for
the Shaky Ladder (as :class:`~ladderboard.rules.config.Scoring` does),
and its releases are mapped back, so that every board is on the loss's scale.
Stochastic mechanisms draw from ``KeyedStream.from_random_state(seed)``,
derived per mechanism and team: a replay does not depend on ``threads``.
BayesBootLadderBoot derives BayesBootLadder's stream, whose test it runs
(:attr:`~ladderboard.replay.mechanism_choice.MechanismChoice.test_source`): the two
accept the same submissions and differ only in their releases, and when both
are replayed with the same test parameters the second takes the first's
decisions instead of drawing them again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ladderboard._blas import single_blas_thread
from ladderboard.bootstrap import limit_threads
from ladderboard.direction import Direction
from ladderboard.files import Solution, SubmissionError
from ladderboard.random import KeyedStream
from ladderboard.replay.history import Entry, Skipped
from ladderboard.replay.loading import MAX_BYTES, load_submission
from ladderboard.replay.mechanism_choice import MechanismChoice
from ladderboard.rules.boards import Record, private_board, public_board
from ladderboard.rules.config import CompetitionConfig, Scoring
from ladderboard.rules.scoring import check_targets, score_predictions

__all__ = [
    "BoardEntry",
    "MechanismReplay",
    "ScoredHistory",
    "loss_scoring",
    "metric_scoring",
    "replay_mechanism",
    "score_history",
]


ROW_BYTES = 32  # what a replayed file may hold a solution row and a target, beyond MAX_BYTES


def loss_scoring(name: str, clip: float | None = None) -> Scoring:
    """The scoring of a loss of the registry (``log_loss``, ``brier``, ...).

    ``clip``: for a log loss, predicted probabilities are clipped to
    ``[clip, 1 - clip]`` (default: the loss's own, Kaggle's 1e-15), which
    bounds the loss by ``-log(clip)``.

    >>> loss_scoring("log_loss", clip=0.01).loss().bounds[1] == -math.log(0.01)
    True
    >>> loss_scoring("brier", clip=0.01)
    Traceback (most recent call last):
    ValueError: clip: the loss 'brier' takes no clip (only the log losses do)
    """
    params: dict = {}
    if clip is not None:
        clip = float(clip)
        if not 0.0 < clip < 0.5:
            raise ValueError(f"clip must be in (0, 0.5), got {clip!r}")
        if name not in ("log_loss", "multiclass_log_loss"):
            raise ValueError(f"clip: the loss {name!r} takes no clip (only the log losses do)")
        params["clip"] = (clip, 1.0 - clip)
    return CompetitionConfig(score=name, score_params=params, mechanism="full-disclosure").scoring()


def metric_scoring(name: str) -> Scoring:
    """The scoring of a metric of the registry, for the metric-based mechanisms."""
    return CompetitionConfig(score=name, mechanism="bayes-boot-ladder").scoring()


@dataclass
class ScoredHistory:
    """The submissions read, in submission order, and their per-row losses.

    ``public_losses`` is ``(k, n_public)``, ``private_losses`` ``(k, n_private)``
    (rows of the solution in solution order); ``predictions`` is ``(k, n)``
    when kept. ``repairs[i]`` are the repairs made to read ``entries[i]``.
    """

    entries: list[Entry]
    skipped: list[Skipped]
    repairs: list[tuple[str, ...]]
    public_losses: np.ndarray
    private_losses: np.ndarray
    predictions: np.ndarray | None
    _derived: dict = field(default_factory=dict, repr=False, compare=False)

    def metric_scores(
        self, solution: Solution, metric_name: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """The public predictions ``(k, n_public)``, each submission's public and
        private score under the metric, and its direction; computed once for
        every metric-based mechanism of a replay."""
        if metric_name not in self._derived:
            if self.predictions is None:
                raise ValueError("the predictions were not kept (score_history keep_predictions)")
            self._derived[metric_name] = (
                np.ascontiguousarray(self.predictions[:, solution.public_rows]),
                *_metric_scores(self.predictions, solution, metric_name),
            )
        return self._derived[metric_name]

    @property
    def teams(self) -> dict[str, list[int]]:
        """Each team's submissions (indices into ``entries``), in submission order."""
        teams: dict[str, list[int]] = {}
        for i, entry in enumerate(self.entries):
            teams.setdefault(entry.team, []).append(i)
        return teams

    @property
    def public_score(self) -> np.ndarray:
        return self.public_losses.mean(axis=1)

    @property
    def private_score(self) -> np.ndarray:
        return self.private_losses.mean(axis=1)


def score_history(
    solution: Solution,
    entries: Sequence[Entry],
    scoring: Scoring,
    *,
    keep_predictions: bool = False,
    probabilities: bool | None = None,
    threads: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ScoredHistory:
    """Read and score every file once (on ``threads`` threads: the work is
    reading files and numpy, which release the GIL); refused files go to
    ``skipped``.

    ``probabilities`` (default: the scoring's own need) makes values just
    outside ``[0, 1]`` clipped and values further out refused.
    A file may hold, compressed or not, 50 MiB or 32 bytes a solution row and
    target column (64 a row of one target), whichever is more: a history of
    ten million rows, 99 MB of CSV a file, replays as the smaller ones do.
    ``progress(done, total)``, when given, is called as each file is scored.
    """
    if scoring.kind != "loss":
        raise ValueError(f"scoring must be a loss, got the metric {scoring.name!r}")
    needs = scoring.requires_probabilities if probabilities is None else probabilities
    try:  # once, so that each file is scored without checking the labels again
        check_targets(scoring, solution.targets)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"solution: the loss {scoring.name!r} cannot score it: {exc}") from None
    max_bytes = max(MAX_BYTES, ROW_BYTES * solution.n * (1 + len(solution.target_columns)))
    scored_mask = solution.public_mask | solution.private_mask
    scored_rows = np.flatnonzero(scored_mask)
    in_scored = np.cumsum(scored_mask) - 1
    public_at = in_scored[solution.public_mask]
    private_at = in_scored[solution.private_mask]

    def one(entry: Entry):
        try:
            loaded = load_submission(
                entry.path.read_bytes(), solution, probabilities=needs, max_bytes=max_bytes
            )
            scored = score_predictions(
                scoring,
                solution.targets,
                loaded.predictions,
                scored_rows,
                solution.private_rows,
                checked=True,
            )
        except SubmissionError as error:
            return Skipped(entry.file, entry.team, error.code, str(error))
        except (OSError, ValueError, TypeError) as error:
            return Skipped(entry.file, entry.team, "not_scorable", str(error))
        losses = scored.public_input
        kept = loaded.predictions if keep_predictions else None
        return losses[public_at], losses[private_at], loaded.repairs, kept

    def each() -> Iterator[Any]:
        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                yield from pool.map(one, entries)
        else:
            yield from map(one, entries)

    results = []
    for result in each():
        results.append(result)
        if progress is not None:
            progress(len(results), len(entries))
    kept_entries = [e for e, r in zip(entries, results, strict=True) if not isinstance(r, Skipped)]
    good = [r for r in results if not isinstance(r, Skipped)]
    skipped = [r for r in results if isinstance(r, Skipped)]
    k = len(good)
    public = np.empty((k, solution.n_public))
    private = np.empty((k, solution.n_private))
    predictions = None
    if keep_predictions and k:
        predictions = np.empty((k, *good[0][3].shape))
    for i, (pub, priv, _, preds) in enumerate(good):
        public[i], private[i] = pub, priv
        if predictions is not None:
            predictions[i] = preds
    return ScoredHistory(kept_entries, skipped, [r[2] for r in good], public, private, predictions)


@dataclass(frozen=True)
class BoardEntry:
    """One team on a board: its rank, score and the submission behind it."""

    rank: int
    team: str
    score: float
    submission: int
    entries: int


@dataclass
class MechanismReplay:
    """A mechanism's releases for every submission, and its two boards.

    ``public_true`` and ``private`` are the unrounded scores of each
    submission on the scale the mechanism ranks by (the loss's mean, or the
    metric of a metric-based mechanism).
    """

    choice: MechanismChoice
    released: np.ndarray
    improved: np.ndarray
    public_true: np.ndarray
    private: np.ndarray
    greater_is_better: bool
    public_board: list[BoardEntry]
    private_board: list[BoardEntry]
    params: dict[str, Any] = field(default_factory=dict)
    """The mechanism's parameters as replayed: those set, without ``n``, the
    labels and array-valued ones (what the report lists)."""

    @property
    def name(self) -> str:
        return self.choice.name

    def selections(self) -> dict[str, int]:
        """Each team's selected submission."""
        return {e.team: e.submission for e in self.public_board}


def boards(
    teams: dict[str, list[int]],
    released: np.ndarray,
    private: np.ndarray,
    improved: np.ndarray,
    *,
    direction: Direction,
    release_is_current_best: bool,
) -> tuple[list[BoardEntry], list[BoardEntry]]:
    """The public and private boards of one replay, by the rule of the live
    boards (:func:`ladderboard.rules.boards.public_board`): submissions are
    ordered by their index, each team's selection is its public entry's
    submission (on a ladder the file the mechanism last took as its best,
    ``improved``), and its private score is that submission's.

    >>> from ladderboard.direction import LOWER_IS_BETTER
    >>> teams = {"a": [0, 2], "b": [1, 3]}
    >>> released = np.array([0.5, 0.4, 0.5, 0.3])
    >>> improved = np.array([True, True, False, True])
    >>> public, private = boards(teams, released, np.array([.6, .2, .1, .5]), improved,
    ...                          direction=LOWER_IS_BETTER, release_is_current_best=True)
    >>> [(e.team, e.score, e.submission) for e in public]
    [('b', 0.3, 3), ('a', 0.5, 0)]
    >>> [(e.team, e.score, e.submission) for e in private]
    [('b', 0.5, 3), ('a', 0.6, 0)]
    """
    records = [
        Record(i, team, i, float(released[i]), float(private[i]), improved=bool(improved[i]))
        for team, rows in teams.items()
        for i in rows
    ]
    # The organiser's view: on a ladder each entry names the file the
    # mechanism holds as best, even where the live board keeps it from the teams.
    public = public_board(
        records, direction=direction, release_is_current_best=release_is_current_best
    )
    chosen = {s.submission_id for s in public}
    selected = [dataclasses.replace(r, selected=r.id in chosen) for r in records]
    private_standings = private_board(selected, direction=direction)
    return (
        [
            BoardEntry(rank, s.team, s.score, s.submission_id, s.entries)
            for rank, s in enumerate(public, 1)
        ],
        [
            BoardEntry(rank, s.team, s.score, s.submission_id, s.entries)
            for rank, s in enumerate(private_standings, 1)
        ],
    )


def _metric_scores(
    predictions: np.ndarray, solution: Solution, metric_name: str
) -> tuple[np.ndarray, np.ndarray, bool]:
    from ladderboard.losses import get_metric

    metric = get_metric(metric_name)
    y = solution.targets
    pub, priv = solution.public_rows, solution.private_rows
    public = np.array([metric.score(y[pub], p[pub]) for p in predictions])
    private = np.array([metric.score(y[priv], p[priv]) for p in predictions])
    return public, private, metric.greater_is_better


def _replayed_params(mechanism) -> dict[str, Any]:
    """The parameters a replay reports: those set, by name (an enum's name),
    without ``n``, ``chunk_bytes`` and arrays such as the labels."""
    return {
        k: getattr(v, "name", v)
        for k, v in mechanism.get_params().items()
        if v is not None and not isinstance(v, np.ndarray) and k not in ("n", "chunk_bytes")
    }


def replay_mechanism(
    choice: MechanismChoice,
    history: ScoredHistory,
    solution: Solution,
    *,
    loss_bounds: tuple[float, float],
    metric: str | None = None,
    seed: int = 0,
    threads: int = 1,
    decisions: np.ndarray | None = None,
) -> MechanismReplay:
    """Run ``choice`` over the history, one instance per team (module docstring).

    ``decisions``: the accept flags, per submission, of a replay of
    ``choice.test_source`` with the same seed and test parameters, which this
    one's test would draw again; given them, it only computes its releases.
    """
    klass = choice.klass
    k = len(history.entries)
    n = solution.n_public
    released = np.empty(k)
    improved = np.zeros(k, dtype=bool)
    master = KeyedStream.from_random_state(seed)
    y_public = solution.targets[solution.public_mask]
    if choice.takes_predictions:
        if metric is None:
            raise ValueError("metric: the metric-based mechanisms need one (e.g. log_loss)")
        inputs, public_true, private, greater = history.metric_scores(solution, metric)
        scale = None
    else:
        inputs = history.public_losses
        public_true, private, greater = history.public_score, history.private_score, False
        lo, hi = klass.loss_bounds
        low, high = loss_bounds
        scale = None
        if (lo, hi) != (-math.inf, math.inf) and not (low >= lo and high <= hi):
            if not (math.isfinite(low) and math.isfinite(high)):
                raise ValueError(
                    f"{choice.name} needs losses in [{lo:g}, {hi:g}]; the loss is unbounded"
                )
            scale = (low, high)

    if scale is not None:  # once for every submission, not once per submit
        inputs = np.clip((inputs - scale[0]) / (scale[1] - scale[0]), 0.0, 1.0)

    def run_team(item: tuple[str, list[int]]) -> None:
        team, rows = item
        mechanism = choice.build(
            n=n,
            y_true=y_public,
            metric=metric,
            random_state=master.derive(f"{choice.test_source}/{team}"),
            decisions=None if decisions is None else decisions[rows],
        )
        # With one team per core, a Bayesian bootstrap's own threads would only
        # oversubscribe the cores; the limit never changes a result.
        with limit_threads(1) if threads > 1 else contextlib.nullcontext():
            for i in rows:
                release = mechanism.submit(inputs[i])
                score = release.score
                if scale is not None:
                    score = scale[0] + score * (scale[1] - scale[0])
                released[i], improved[i] = score, release.improved

    teams = history.teams
    # BLAS on one thread: with a thread per team the Bayesian bootstrap's
    # matrix products would oversubscribe the cores, and
    # alone a ladder's long dot products would leave OpenBLAS spinning.
    with single_blas_thread():
        if threads > 1 and len(teams) > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(run_team, teams.items()))
        else:
            for item in teams.items():
                run_team(item)
    public_board, private_board = boards(
        teams,
        released,
        private,
        improved,
        direction=Direction(greater),
        release_is_current_best=klass.release_is_current_best,
    )
    return MechanismReplay(
        choice,
        released,
        improved,
        public_true,
        private,
        greater,
        public_board,
        private_board,
        _replayed_params(choice.build(n=n, y_true=y_public, metric=metric, random_state=0)),
    )
