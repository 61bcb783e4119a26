"""One call from a competition's files to every replay and analysis (Blum & Hardt 2015, Sec. 6)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ladderboard._validation import check_int
from ladderboard.replay.history import default_index, discover

if TYPE_CHECKING:
    from ladderboard.files import Solution
    from ladderboard.replay.mechanism_choice import MechanismChoice
    from ladderboard.replay.replay import MechanismReplay, ScoredHistory

__all__ = ["REFERENCE", "ReplayResult", "replay_competition"]

REFERENCE = "full-disclosure"
"""The board others are compared with when it is replayed: Kaggle's own."""


@dataclass
class ReplayResult:
    """Everything a replay computed; :mod:`ladderboard.replay.report` writes it out."""

    solution: Solution
    history: ScoredHistory
    replays: list[MechanismReplay]
    reference: MechanismReplay
    loss: str
    metric: str | None
    seed: int
    index: Path | None
    perturbations: list[dict]
    kendall: list[dict]
    half_splits: list[dict]
    ttests: list[dict]
    loss_bounds: tuple[float, float] = (0.0, float("inf"))
    clip: float | None = None
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class _Plan:
    solution: Solution
    directory: Path
    index: Path | None
    choices: list[MechanismChoice]
    loss: str
    metric: str | None
    seed: int
    threads: int
    splits: int
    loss_bounds: tuple[float, float]
    clip: float | None


def _plan(
    solution: Solution | str | Path,
    submissions_dir: str | Path,
    index: str | Path | None,
    mechanisms: Sequence[str],
    params: dict[str, Any] | Iterable[str] | None,
    loss: str,
    metric: str | None,
    seed: int,
    threads: int,
    splits: int,
    clip: float | None,
) -> _Plan:
    from ladderboard.files import Solution
    from ladderboard.losses import LOSSES, METRICS
    from ladderboard.replay.mechanism_choice import choose_mechanisms, parse_params
    from ladderboard.replay.replay import loss_scoring, metric_scoring

    seed = check_int("seed", seed, 0)
    threads = check_int("threads", threads, 1)
    splits = check_int("splits", splits, 2)
    if isinstance(mechanisms, str):
        mechanisms = [mechanisms]
    if params is None:
        params = {}
    elif not isinstance(params, dict):
        params = parse_params(params)
    choices = choose_mechanisms(list(mechanisms), params)
    if loss not in LOSSES:
        raise ValueError(f"loss: unknown loss {loss!r}; registered losses: {', '.join(LOSSES)}")
    try:
        scoring = loss_scoring(loss, clip)
    except ValueError as exc:
        raise ValueError(exc if str(exc).startswith("clip") else f"loss: {exc}") from None
    needs_metric = any(c.takes_predictions for c in choices)
    if needs_metric:
        if metric is None:
            raise ValueError("metric: the metric-based mechanisms need one (e.g. log_loss)")
        if metric not in METRICS:
            raise ValueError(
                f"metric: unknown metric {metric!r}; registered metrics: {', '.join(METRICS)}"
            )
        try:
            metric_scoring(metric)
        except ValueError as exc:
            raise ValueError(f"metric: {exc}") from None
    directory = Path(submissions_dir)
    if not directory.is_dir():
        raise ValueError(f"submissions_dir must be a directory, got {str(directory)!r}")
    if index is not None and not Path(index).is_file():
        raise ValueError(f"index must be a file, got {str(index)!r}")
    if not isinstance(solution, Solution):
        path = Path(solution)
        if not path.is_file():
            raise ValueError(f"solution must be a file, got {str(path)!r}")
        solution = Solution.from_csv(path)
    if solution.n_private < 2:
        raise ValueError(
            f"solution: the half-splits need at least 2 private rows, got {solution.n_private}"
        )
    y_public = solution.targets[solution.public_mask]
    for choice in choices:  # bad values fail here, before any file is read
        try:
            choice.build(n=solution.n_public, y_true=y_public, metric=metric, random_state=0)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"mechanism {choice.name!r} with {choice.params}: {exc}") from None
    bounds = scoring.loss().bounds
    return _Plan(
        solution,
        directory,
        None if index is None else Path(index),
        choices,
        loss,
        metric if needs_metric else None,
        seed,
        threads,
        splits,
        (float(bounds[0]), float(bounds[1])),
        clip,
    )


def replay_competition(
    solution: Solution | str | Path,
    submissions_dir: str | Path,
    *,
    index: str | Path | None = None,
    mechanisms: Sequence[str] = (REFERENCE, "parameter-free-ladder"),
    params: dict[str, Any] | Iterable[str] | None = None,
    loss: str = "log_loss",
    metric: str | None = "log_loss",
    seed: int = 0,
    threads: int = 1,
    splits: int | None = None,
    clip: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayResult:
    """Replay every submission under every chosen mechanism, then analyse
    (Blum & Hardt 2015, Sec. 6).

    Every option is checked (and every mechanism built once) before any
    submission is read. ``index`` defaults to ``submissions.csv`` beside the
    ``submissions_dir`` directory when it exists, else the file names are read.
    ``loss`` is a registered loss (:data:`ladderboard.losses.LOSSES`): the
    per-row loss the loss-based mechanisms see, and by which the boards rank;
    ``metric`` a registered metric (:data:`ladderboard.metrics.METRICS`), for
    the metric-based mechanisms only (the Bayesian-bootstrap ladders, Chaibub
    Neto et al. 2016). ``threads`` threads read and score the files and
    replay the teams (the work is file reading and numpy, which release the
    GIL); the result does not depend on it. ``progress(done, total)``, when
    given, is called as files are scored and mechanisms replayed (a file is
    one step, a mechanism as many steps as there are files).
    The reference board is Kaggle's (``full-disclosure``) when replayed, else
    the first mechanism's. ``clip`` clips probabilities in a log loss to
    ``[clip, 1 - clip]`` (default Kaggle's 1e-15); a mechanism for losses in
    ``[0, 1]`` (the Shaky Ladder) sees the loss divided by ``-log(clip)``, so
    with Kaggle's clip its noise is 34.5 times what the loss's spread needs:
    use the Ladder authors' 0.01 for it. ``splits`` is the number of random
    half-splits of the private rows (default
    :data:`ladderboard.replay.analysis.SPLITS`).

    The mechanisms, the scoring and the analyses are imported here, when a
    replay runs, so that importing the package stays light.
    """
    from ladderboard.replay import analysis
    from ladderboard.replay.replay import loss_scoring, replay_mechanism, score_history

    if splits is None:
        splits = analysis.SPLITS
    plan = _plan(
        solution,
        submissions_dir,
        index,
        mechanisms,
        params,
        loss,
        metric,
        seed,
        threads,
        splits,
        clip,
    )
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    chosen_index = plan.index if plan.index is not None else default_index(plan.directory)
    entries, skipped = discover(plan.directory, chosen_index)
    total = len(entries) * (1 + len(plan.choices))

    def files_done(done: int, _: int) -> None:
        if progress is not None:
            progress(done, total)

    files_done(0, len(entries))
    history = score_history(
        plan.solution,
        entries,
        loss_scoring(plan.loss, plan.clip),
        keep_predictions=plan.metric is not None,
        threads=plan.threads,
        progress=files_done,
    )
    history.skipped[:0] = skipped
    if not history.entries:
        raise ValueError(f"no submission of {str(plan.directory)!r} could be read")
    seconds["read and score"] = time.perf_counter() - start
    replays: list[MechanismReplay] = []
    for choice in plan.choices:
        began = time.perf_counter()
        source = next(
            (
                r
                for r in replays
                if choice.test_source != choice.name
                and r.choice.name == choice.test_source
                and r.choice.test_params() == choice.test_params()
            ),
            None,
        )
        replays.append(
            replay_mechanism(
                choice,
                history,
                plan.solution,
                loss_bounds=plan.loss_bounds,
                metric=plan.metric,
                seed=plan.seed,
                threads=plan.threads,
                decisions=None if source is None else source.improved,
            )
        )
        seconds[choice.name] = time.perf_counter() - began
        if progress is not None:
            progress(len(entries) * (1 + len(replays)), total)
    began = time.perf_counter()
    reference = next((r for r in replays if r.name == REFERENCE), replays[0])
    halves = analysis.half_split_indices(plan.solution.n_private, plan.splits, plan.seed)
    result = ReplayResult(
        solution=plan.solution,
        history=history,
        replays=replays,
        reference=reference,
        loss=plan.loss,
        metric=plan.metric,
        seed=plan.seed,
        index=chosen_index,
        perturbations=analysis.rank_perturbations(replays, reference),
        kendall=analysis.kendall(replays),
        half_splits=[row for r in replays for row in analysis.half_splits(r, history, halves)],
        ttests=[row for r in replays for row in analysis.ttests(r, history)],
        loss_bounds=plan.loss_bounds,
        clip=plan.clip,
        seconds=seconds,
    )
    seconds["analysis"] = time.perf_counter() - began
    return result
