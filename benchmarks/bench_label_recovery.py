"""Labels one submission recovers from the digits of a released log loss, by board.

Whitehill (2017) reads a group of rows' labels from one released log loss;
how many rows a release can spell depends on its precision
(:func:`ladderboard.attacks.label_recovery_attack`). Each board here is a
log-loss competition on the engine (``Competitions`` on SQLite, random
labels, ``--rows`` rows of which ``--public`` are scored), played by the
attack for ``--k`` submissions:

* the "API" attacker reads the released score as the API returns it;
* the "page" attacker reads it with the decimals the pages show
  (``Competitions.decimals``: the mechanism's resolution, at most the
  competition's ``precision``).

Per submission it prints the rows probed, the labels recovered, how many
of them beyond what coin flips would get right (``2·right − recovered``),
each a mean over ``--reps`` competitions with its Student-t 95 %
half-width. The goal of a protected board is no label beyond chance; the
ratio compares each board with the full-precision board of the same run.

    python benchmarks/bench_label_recovery.py --rows 3000 --public 1000 --k 20 --reps 5
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from ladderboard.advisor.yardstick import t_interval
from ladderboard.attacks import label_recovery_attack
from ladderboard.attacks.labelrecovery import encoding_probabilities
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import MECHANISMS
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig

BOARDS = (
    # label, mechanism, its parameters, the competition's precision (None: default)
    ("full disclosure, 15 decimals", "full-disclosure", {"precision": 1e-15}, 15),
    ("full disclosure 1e-15, pages show 5", "full-disclosure", {"precision": 1e-15}, 5),
    ("full disclosure at its defaults (1e-5)", "full-disclosure", {}, None),
    ("full disclosure 1e-3", "full-disclosure", {"precision": 1e-3}, 3),
    ("parameter-free Ladder", "parameter-free-ladder", {}, None),
)


def recommended_board(n_public: int) -> tuple[str, str, dict, None]:
    """The recommended board with its explicit parameters at ``n_public``
    (``RECOMMENDED.params_at`` where it exists, else ``η = 1/√n`` for the
    fixed-step Ladder)."""
    params_at = getattr(RECOMMENDED, "params_at", None)
    if callable(params_at):
        params = dict(params_at(n_public))
    else:
        params = dict(RECOMMENDED.params)
        if RECOMMENDED.mechanism == "ladder":
            params.setdefault("eta", 1 / math.sqrt(n_public))
    return f"recommended: {RECOMMENDED.label}", RECOMMENDED.mechanism, params, None


class Board:
    """The attacker's view: a file in, the released score out."""

    def __init__(self, store, solution, mechanism, decimals, *, page):
        self.store, self.solution, self.mechanism = store, solution, mechanism
        self.decimals, self.page = decimals, page

    def submit(self, prediction):
        lines = [f"{self.solution.id_column},{self.solution.target_columns[0]}"]
        lines += [f"{i},{float(p)!r}" for i, p in zip(self.solution.ids, prediction, strict=True)]
        score = self.store.submit("comp", "alpha", ("\n".join(lines) + "\n").encode()).public_score
        return round(score, self.decimals) if self.page else score


def play(folder, seed, board, args, *, page):
    _, mechanism, params, precision = board
    labels = np.random.default_rng(seed).integers(0, 2, args.rows)
    solution = Solution.from_labels(
        labels, public_fraction=args.public / args.rows, random_state=seed
    )
    folder.mkdir(exist_ok=True)
    store = Competitions.open(f"sqlite:///{folder / f'{seed}-{page}.db'}")
    shown = {} if precision is None else {"precision": precision}
    config = CompetitionConfig(
        score="log_loss",
        mechanism=mechanism,
        mechanism_params=dict(params),
        daily_quota=None,
        **shown,
    )
    try:
        store.create("comp", solution, config, random_state=seed)
        store.add_team("comp", "alpha")
        decimals = store.decimals(store.competition("comp"))
        rules = MECHANISMS[mechanism](n=solution.n_public, **params)
        view = Board(store, solution, rules, decimals, page=page)
        resolution: float | str = 10.0**-decimals if page else "auto"
        extra = {}
        if mechanism != "full-disclosure":
            # A ladder's resolution spells no row: decode as finely as the
            # full-precision board allows, to show what comes out.
            extra = {"m": len(encoding_probabilities(solution.n_public, 1e-15)), "resolution": 0.0}
            resolution = extra.pop("resolution")
        result = label_recovery_attack(
            view,
            n_labels=args.rows,
            n_public=solution.n_public,
            k=args.k,
            resolution=resolution,
            true_labels=labels,
            **extra,
        )
    finally:
        store.engine.dispose()
    per = max(result.n_submissions, 1)
    assert result.n_correct is not None
    beyond = (2 * result.n_correct - result.n_recovered) / per
    return decimals, result.rows_per_submission, result.n_recovered / per, beyond


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--public", type=int, default=1000)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=37)
    args = parser.parse_args(argv)

    began = time.perf_counter()
    rows = []
    boards = [*BOARDS, recommended_board(args.public)]
    with tempfile.TemporaryDirectory() as folder:
        for index, board in enumerate(boards):
            for page in (False, True):
                runs = [
                    play(Path(folder) / f"{index}", args.seed + rep, board, args, page=page)
                    for rep in range(args.reps)
                ]
                rows.append((board[0], "page" if page else "API", runs))
    print(
        f"{args.rows} rows, {args.public} scored, {args.k} submissions, {args.reps} "
        "competitions; per submission, mean ± Student-t 95 % half-width\n"
    )
    print(
        "| board | reads | decimals shown | rows probed | labels recovered "
        "| beyond chance (goal 0) | ratio to full precision |"
    )
    print("|---|---|---|---|---|---|---|")
    baseline = None
    for label, reads, runs in rows:
        columns = (np.asarray(column) for column in zip(*runs, strict=True))
        decimals, width, recovered, beyond = columns
        leak = t_interval(beyond)
        if baseline is None:
            baseline = leak.mean
        ratio = leak.mean / baseline if baseline else float("nan")
        print(
            f"| {label} | {reads} | {int(decimals[0])} | {int(width[0])} "
            f"| {t_interval(recovered)} | {leak} | {ratio:.2f} |"
        )
    print(f"\ntotal {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
