"""What each defence against near-duplicate hill-climbing buys, and what it costs honest teams.

Near-duplicate hill-climbing (:func:`ladderboard.attacks.near_duplicate_attack`)
flips a few rows of the file believed best; a paired-test ladder's threshold
``c·s/√n`` shrinks to ``c·√m/n`` for a file that differs in ``m`` rows, so
small improvements pass. Two defences, measured on the papers' yardstick
(:mod:`ladderboard.advisor.yardstick`: random labels, true error 0.5, raw gain
= 0.5 − what the board displays at the end, Blum & Hardt 2015, Def. 2.1;
Student-t 95 % intervals over repetitions; every board sees the same labels
and attacker's draws in a repetition, so differences are paired):

(a) a distance guard: the engine refuses a file within ``d`` rows of one of
    the team's earlier files, and the attacker steps over it (every file it
    sends changes at least ``d + 1`` rows: ``min_rows``). Its cost: the share
    of honest files the guard would refuse, under the honest-team model of
    :mod:`ladderboard.advisor.honest` and for scikit-learn models of two
    bundled datasets whose hyperparameters move one step at a time.
(b) a floor on the paired-test ladders: a file must also beat the best by
    more than ``1/√n`` (the ``floor`` parameter), as the fixed-step Ladder's
    ``η = 1/√n`` asks (Blum & Hardt 2015, Fig. 1). Its cost: honest teams'
    Kendall tau between the released and the private board, against full
    disclosure's (:func:`ladderboard.advisor.honest.honest_utility`).

Each figure is printed beside its goal: a defended board's gain no larger
than the fixed-step Ladder's (η = 1/√n) within intervals, honest files
refused 0 %, honest tau within 0.01 of full disclosure's.

What decided it (run the script for the figures): the guard leaves most of
the gain, since a file of ``d + 1`` changed rows still meets a threshold of
about ``c·√(d+1)/n``, far below ``1/√n``, while successive scikit-learn
models one hyperparameter step apart often differ in fewer rows than any
guard that would matter, so it refuses honest files. The floor brings the
exact paired-test ladders' gain to the fixed-step Ladder's, at a cost to
honest teams no smaller than that Ladder's. So the floor is built, as an
option off by default (:func:`ladderboard.mechanisms.ladder.check_floor`),
and the guard is not.

    python benchmarks/bench_defences.py --n 4000 --k 1000 --reps 10 --honest-reps 10
    python benchmarks/bench_defences.py --only floor --honest-reps 20 --floors 1 0.5
"""

from __future__ import annotations

import os

# One thread per process: the machine is shared, and scikit-learn's OpenMP
# threads oversubscribe it many times over.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ladderboard.advisor.grid import BAYES_B, Setting, default_grid, scoring_rule
from ladderboard.advisor.honest import HonestTeams, honest_utility, simulate_teams
from ladderboard.advisor.yardstick import (
    TRUE_ERROR,
    Interval,
    paired_difference,
    raw_gains,
    t_interval,
)
from ladderboard.attacks import HoldoutOracle, near_duplicate_attack
from ladderboard.mechanisms import (
    BayesBootLadder,
    LadderBoot,
    ParameterFreeLadder,
    SignificanceLadder,
)
from ladderboard.random import KeyedStream

REFERENCE = "Ladder η=1/√n"
FULL = "Kaggle 1e-5"
GUARDED = ("PF Ladder", "Sig-Ladder α=0.15", "LadderBoot b=10")
GUARD_SHARES = (0.0, 0.0025, 0.01, 0.025, 0.05)
"""Guard distances as shares of a file's rows: 0 (identical files only, the
engine today), then 10, 40, 100 and 200 rows of 4000."""


# ---------------------------------------------------------------- (a) the guard


class _Guarded:
    """An oracle behind a distance guard: a file within ``d`` rows of one of the
    earlier files is refused (counted, and answered with the last release, so
    the attacker learns nothing from it and loses one file of its budget)."""

    def __init__(self, oracle: HoldoutOracle, d: int, k: int):
        self._oracle = oracle
        self.mechanism = oracle.mechanism
        self.n_labels = oracle.n_labels
        self.n_public = oracle.n_public
        self.d = d
        self.refused = 0
        words = math.ceil(oracle.n_labels / 64)
        self._files = np.zeros((k, words), dtype=np.uint64)
        self._sent = 0
        self._last = math.nan

    def submit(self, prediction: Any) -> float:
        packed = _pack(np.asarray(prediction))
        if self._sent and _nearest(self._files[: self._sent], packed) <= self.d:
            self.refused += 1
            return self._last
        self._files[self._sent] = packed
        self._sent += 1
        self._last = float(self._oracle.submit(prediction))
        return self._last


def _pack(labels: np.ndarray) -> np.ndarray:
    """0/1 labels as bits in 64-bit words (zero-padded)."""
    bits = np.packbits(labels.astype(np.uint8))
    padded = np.zeros(math.ceil(bits.size / 8) * 8, dtype=np.uint8)
    padded[: bits.size] = bits
    return padded.view(np.uint64)


def _nearest(files: np.ndarray, packed: np.ndarray) -> int:
    """Rows in which ``packed`` differs from the nearest of ``files``."""
    return int(np.bitwise_count(files ^ packed).sum(axis=1, dtype=np.int64).min())


def _guarded_attack(d: int, refused: list[int]) -> Callable[[HoldoutOracle, int, Any], float]:
    def attack(oracle: HoldoutOracle, k: int, stream: Any) -> float:
        guarded = _Guarded(oracle, d, k)
        start = stream.derive("start").generator(0).integers(0, 2, oracle.n_labels)
        result = near_duplicate_attack(
            guarded,
            start.astype(np.int8),
            k=k,
            min_rows=d + 1,
            random_state=stream.derive("attack"),
            true_score=TRUE_ERROR,
        )
        refused.append(guarded.refused)
        assert result.raw_gain is not None
        return result.raw_gain

    return attack


def _refused_shares(files: np.ndarray, shares: tuple[float, ...]) -> np.ndarray:
    """For one team's ``files`` (in order, 0/1 rows), whether each file after
    the first lies within ``floor(share · rows)`` rows of an earlier one."""
    rows = files.shape[1]
    packed = np.stack([_pack(f) for f in files])
    nearest = np.array([_nearest(packed[:t], packed[t]) for t in range(1, len(files))])
    limits = np.array([math.floor(s * rows) for s in shares])
    return nearest[:, None] <= limits[None, :]


def _consecutive(files: np.ndarray) -> np.ndarray:
    """The share of rows each file changes from the one before it."""
    return np.count_nonzero(files[1:] != files[:-1], axis=1) / files.shape[1]


def _sklearn_sequences(seed: int) -> dict[str, list[np.ndarray]]:
    """Honest sequences: each family of scikit-learn models walks one
    hyperparameter one step at a time; a file is the model's 0/1 predictions
    on the held-out half of a bundled dataset."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    digits = load_digits()
    cancer = load_breast_cancer()
    datasets = {
        "digits (≥ 5)": (digits.data, (digits.target >= 5).astype(int)),
        "breast cancer": (cancer.data, cancer.target),
    }
    families: dict[str, Callable[[Any], Any]] = {
        "logistic C×√10^½": lambda j: make_pipeline(
            StandardScaler(), LogisticRegression(C=10 ** (-3 + j / 4), max_iter=2000)
        ),
        "kNN k+1": lambda j: make_pipeline(StandardScaler(), KNeighborsClassifier(j + 1)),
        "tree depth+1": lambda j: DecisionTreeClassifier(max_depth=j + 1, random_state=seed),
        "forest +10 trees": lambda j: RandomForestClassifier(
            n_estimators=10 * (j + 1), random_state=seed, n_jobs=1
        ),
        "boosting +10 rounds": lambda j: HistGradientBoostingClassifier(
            max_iter=10 * (j + 1), early_stopping=False, random_state=seed
        ),
    }
    out: dict[str, list[np.ndarray]] = {}
    for data_name, (x, y) in datasets.items():
        x_fit, x_test, y_fit, _ = train_test_split(x, y, test_size=0.5, random_state=seed)
        for family, make in families.items():
            out[f"{data_name}: {family}"] = [
                make(j).fit(x_fit, y_fit).predict(x_test).astype(np.int8) for j in range(20)
            ]
    return out


def guard_section(args: argparse.Namespace, grid: dict[str, Setting]) -> None:
    n, k = args.n, args.k
    distances = [math.floor(s * n) for s in GUARD_SHARES]
    print(f"## (a) A guard refusing files within d rows of the team's earlier ones, k = {k}\n")
    print("Raw gain of near-duplicate hill-climbing that flips at least d + 1 rows; goal: no")
    print(f"more than {REFERENCE}'s (paired difference ≤ 0 within its interval).\n")
    reference = raw_gains(grid[REFERENCE], n=n, k=k, repetitions=args.reps, random_state=args.seed)
    print(f"{REFERENCE}, unguarded: {t_interval(reference)}\n")
    print("| board | d (rows) | raw gain | − " + REFERENCE + " (paired) | refused | s |")
    print("|---|---|---|---|---|---|")
    for label in GUARDED:
        for d in distances:
            began = time.perf_counter()
            refused: list[int] = []
            gains = raw_gains(
                grid[label],
                n=n,
                k=k,
                repetitions=args.reps,
                random_state=args.seed,
                attack=_guarded_attack(d, refused),
            )
            print(
                f"| {label} | {d} | {t_interval(gains)} | "
                f"{paired_difference(gains, reference)} | {sum(refused)} | "
                f"{time.perf_counter() - began:.0f} |"
            )
    print()
    print("Cost: share of honest files (after each team's first) within d of an earlier")
    print("file of the team; goal 0 %. d as a share of the file's rows.\n")
    head = " | ".join(f"d = {100 * s:g} %" for s in GUARD_SHARES)
    print(f"| honest sequence | files | median change | {head} |")
    print("|---|---|---|" + "---|" * len(GUARD_SHARES))
    rule = scoring_rule("zero_one")
    model = HonestTeams()
    refused_model = []
    changes = []
    for rep in range(args.honest_reps):
        data = simulate_teams(
            rule,
            n=n,
            n_private=2 * n,
            model=model,
            random_state=KeyedStream.from_random_state(args.seed).derive(f"honest/{rep}"),
        )
        for team in data.predictions:
            refused_model.append(_refused_shares(team, GUARD_SHARES))
            changes.append(_consecutive(team))
    _guard_row("honest-team model (advisor)", np.concatenate(refused_model), changes)
    for name, files in _sklearn_sequences(args.seed).items():
        stacked = np.stack(files)
        _guard_row(name, _refused_shares(stacked, GUARD_SHARES), [_consecutive(stacked)])
    print()


def _guard_row(name: str, refused: np.ndarray, changes: list[np.ndarray]) -> None:
    shares = " | ".join(f"{100 * share:.1f} %" for share in refused.mean(axis=0))
    median = 100 * float(np.median(np.concatenate(changes)))
    print(f"| {name} | {refused.shape[0]} | {median:.2f} % | {shares} |")


# ---------------------------------------------------------------- (b) the floor


def _floored(label: str, floor_multiple: float) -> Setting:
    """The grid's ``label`` with a floor of ``floor_multiple/√n``."""

    def floor_of(n: int) -> float:
        return floor_multiple / math.sqrt(n)

    builders: dict[str, Callable[..., Any]] = {
        "PF Ladder": lambda n, rule, y, rs: ParameterFreeLadder(floor=floor_of(n), n=n),
        "Sig-Ladder α=0.15": lambda n, rule, y, rs: SignificanceLadder(
            alpha=0.15, floor=floor_of(n), n=n
        ),
        "Sig-Ladder α=0.01": lambda n, rule, y, rs: SignificanceLadder(
            alpha=0.01, floor=floor_of(n), n=n
        ),
        "BayesBoot": lambda n, rule, y, rs: BayesBootLadder(
            metric=rule.metric, y_true=y, B=BAYES_B, floor=floor_of(n), random_state=rs
        ),
    }
    for b in (10, 100, 1000):
        builders[f"LadderBoot b={b}"] = lambda n, rule, y, rs, b=b: LadderBoot(
            b=b, floor=floor_of(n), n=n, random_state=rs
        )
    family = {"PF Ladder": "parameter-free-ladder", "BayesBoot": "bayes-boot"}.get(
        label, "ladder-boot" if label.startswith("LadderBoot") else "significance-ladder"
    )
    return Setting(
        f"{label} + floor {floor_multiple:g}/√n",
        family,
        builders[label],
        bootstrap=label.startswith("LadderBoot"),
    )


FLOORED = (
    "PF Ladder",
    "Sig-Ladder α=0.15",
    "Sig-Ladder α=0.01",
    "LadderBoot b=10",
    "LadderBoot b=100",
    "LadderBoot b=1000",
    "BayesBoot",
)


def floor_section(args: argparse.Namespace, grid: dict[str, Setting]) -> None:
    n, k = args.n, args.k
    print(f"## (b) A floor on the paired-test ladders (1/√n = {1 / math.sqrt(n):.4f}), k = {k}\n")
    print("Goals: raw gain no more than the fixed-step Ladder's (paired difference ≤ 0 within")
    print(f"its interval); honest Kendall tau within 0.01 of {FULL}'s (paired ≥ −0.01).\n")
    rule = scoring_rule("zero_one")
    model = HonestTeams()
    honest = [
        simulate_teams(
            rule,
            n=n,
            n_private=2 * n,
            model=model,
            random_state=KeyedStream.from_random_state(args.seed).derive(f"honest/{rep}"),
        )
        for rep in range(args.honest_reps)
    ]

    def taus(setting: Setting) -> tuple[np.ndarray, np.ndarray]:
        out = [
            honest_utility(
                setting,
                rule,
                data,
                model=model,
                random_state=KeyedStream.from_random_state(args.seed).derive(f"board/{rep}"),
            )
            for rep, data in enumerate(honest)
        ]
        return np.array([u["tau"] for u in out]), np.array([u["share_released"] for u in out])

    def gains(setting: Setting) -> np.ndarray:
        return raw_gains(setting, n=n, k=k, repetitions=args.reps, random_state=args.seed)

    reference = gains(grid[REFERENCE])
    full_tau, _ = taus(grid[FULL])
    fixed_tau, _ = taus(grid[REFERENCE])
    print(
        "| board | raw gain | − fixed-step Ladder (paired) | tau | − "
        f"{FULL} tau (paired) | − fixed-step Ladder tau (paired) | improvements released "
        "at once | s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rows: list[Setting] = [grid[FULL], grid[REFERENCE]]
    for label in args.boards:
        rows += [grid[label], *(_floored(label, m) for m in args.floors)]
    for setting in rows:
        began = time.perf_counter()
        g = reference if setting.label == REFERENCE else gains(setting)
        tau, released = taus(setting)
        versus = "–" if setting.label == REFERENCE else str(paired_difference(g, reference))
        tau_full = "–" if setting.label == FULL else str(paired_difference(tau, full_tau))
        tau_fixed = "–" if setting.label == REFERENCE else str(paired_difference(tau, fixed_tau))
        print(
            f"| {setting.label} | {t_interval(g)} | {versus} | {t_interval(tau)} | "
            f"{tau_full} | {tau_fixed} | {_percent(t_interval(released))} | "
            f"{time.perf_counter() - began:.0f} |"
        )
    print()


def _percent(interval: Interval) -> str:
    return f"{100 * interval.mean:.0f} ± {100 * interval.half_width:.0f} %"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=10, help="attack repetitions")
    parser.add_argument("--honest-reps", type=int, default=5, help="honest competitions")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--only", choices=("guard", "floor"), default=None)
    parser.add_argument(
        "--floors", type=float, nargs="+", default=[1.0], help="floors, in units of 1/√n"
    )
    parser.add_argument(
        "--boards", nargs="+", default=list(FLOORED), choices=FLOORED, help="boards to floor"
    )
    args = parser.parse_args(argv)
    grid = {s.label: s for s in default_grid(scoring_rule("zero_one"))}
    began = time.perf_counter()
    print(
        f"n = {args.n} public rows, random labels (true error {TRUE_ERROR}); raw gain = "
        f"{TRUE_ERROR} − displayed; mean ± Student-t 95 % half-width over {args.reps} "
        f"repetitions (honest measures over {args.honest_reps} competitions of "
        f"{HonestTeams().teams} teams); 1/√n = {1 / math.sqrt(args.n):.4f}\n"
    )
    if args.only in (None, "guard"):
        guard_section(args, grid)
    if args.only in (None, "floor"):
        floor_section(args, grid)
    print(f"total {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
