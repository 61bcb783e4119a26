"""What each candidate for ``GuardedHoldout``'s default concedes to a search
that moves locally, and what it costs that search.

The threat to a guarded validation set is a search whose every candidate is
a small change of the best so far. Two such searches, each played through a
:class:`~ladderboard.holdout.GuardedHoldout` built by name (as the searches
of :mod:`ladderboard.integrations` build it), paired across the candidates:
every guard of a repetition sees the same labels and the same proposals.

1. **Near-duplicate hill-climbing** on random labels, the strongest case
   (:func:`~ladderboard.attacks.near_duplicate_attack`; Hardt 2017, Sec. 3-4):
   ``n`` validation labels that are coin flips, so every model's true error
   is 0.5, and ``k`` queries. Raw gain = 0.5 − the score the guard shows at
   the end (Blum & Hardt 2015, Def. 2.1).
2. **A greedy local search over a real model**: scikit-learn's bundled
   digits (1797 images, ten classes), split at random in each repetition
   into training, validation (the guard's labels) and fresh rows. The model
   is a ridge classifier on a subset of the 64 pixels; the search starts
   from a few random pixels and each candidate toggles one pixel of the
   incumbent or moves its ridge penalty one step on a log grid, and becomes
   the incumbent when the guard takes it as its new best
   (``HoldoutAnswer.improved``). The search ends with the guard's best.
   Raw gain = its true error (on the fresh rows) − the score the guard
   reported for it; utility = its true error, against the same search on
   the unguarded validation set and against the best true error of any
   model a search of that repetition visited (chosen on the fresh rows
   themselves, so optimistic).

Every figure is a mean over repetitions with its Student-t 95 % half-width;
a paired difference is taken repetition by repetition.

    python benchmarks/bench_guarded.py                 # n = 4000, k = 1000; the search
    python benchmarks/bench_guarded.py --part climb --n 500 --k 300
    python benchmarks/bench_guarded.py --part climb --k 10000 --climb-reps 5
    python benchmarks/bench_guarded.py --part search --toggles 4   # larger moves
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.advisor.yardstick import paired_difference, t_interval
from ladderboard.attacks import near_duplicate_attack
from ladderboard.holdout import DEFAULT_MECHANISM, GuardedHoldout
from ladderboard.random import KeyedStream


@dataclass(frozen=True)
class Candidate:
    """A guard by name, with its parameters for a validation set of ``n``."""

    label: str
    mechanism: str
    params: Callable[[int], dict[str, Any]]

    def build(self, y: np.ndarray, random_state: KeyedStream) -> GuardedHoldout:
        return GuardedHoldout(
            y,
            score="zero_one",
            mechanism=self.mechanism,
            mechanism_params=self.params(y.shape[0]),
            random_state=random_state,
        )


CANDIDATES = (
    Candidate("PF Ladder", "parameter-free-ladder", lambda n: {}),
    Candidate("Ladder η=1/√n", "ladder", lambda n: {"eta": 1 / math.sqrt(n)}),
    Candidate("Ladder η=0.5/√n", "ladder", lambda n: {"eta": 0.5 / math.sqrt(n)}),
    Candidate("Ladder η=0.25/√n", "ladder", lambda n: {"eta": 0.25 / math.sqrt(n)}),
    Candidate("Sig-Ladder α=0.01", "significance-ladder", lambda n: {"alpha": 0.01}),
    Candidate("LadderBoot b=10", "ladder-boot", lambda n: {"b": 10}),
    Candidate("Shaky default", "shaky-ladder", lambda n: {}),
    Candidate("no guard", "full-disclosure", lambda n: {"precision": 1e-9}),
)
UNGUARDED = "no guard"
REFERENCE = "Ladder η=1/√n"
"""The mechanism with a theorem behind it (Blum & Hardt 2015, Thm 3.1)."""


class _GuardOracle:
    """The attacker's view of a guard: ``submit`` is ``score``; the public
    rules (the mechanism, the direction, the size) as a board shows them."""

    def __init__(self, guard: GuardedHoldout):
        self.guard = guard
        self.mechanism = guard.mechanism
        self.direction = guard.direction
        self.n_labels = self.n_public = guard.n

    def submit(self, prediction: Any) -> float:
        return self.guard.score(prediction)


# ------------------------------------------------------------- part 1: climb
def climb_gains(candidate: Candidate, *, n: int, k: int, reps: int, seed: int) -> np.ndarray:
    root = KeyedStream.from_random_state(seed)
    gains = np.empty(reps)
    for rep in range(reps):
        stream = root.derive(f"climb/{rep}")
        y = stream.derive("labels").generator(0).integers(0, 2, n).astype(np.int8)
        start = stream.derive("start").generator(0).integers(0, 2, n).astype(np.int8)
        guard = candidate.build(y, stream.derive("guard"))
        result = near_duplicate_attack(
            _GuardOracle(guard), start, k=k, random_state=stream.derive("attack"), true_score=0.5
        )
        assert result.raw_gain is not None
        gains[rep] = result.raw_gain
    return gains


# ------------------------------------------------------------ part 2: search
ALPHAS = np.logspace(-3, 4, 15)
"""The ridge penalties the search moves along, one step at a time."""


@dataclass
class SearchOutcome:
    raw_gain: float
    true_error: float
    improvements: int
    visited: dict[tuple[frozenset[int], int], float]


def _digits_split(rep: int, seed: int, n_train: int, n_val: int):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    order = KeyedStream.from_random_state(seed).derive(f"split/{rep}").generator(0)
    index = order.permutation(y.shape[0])
    train, val, fresh = np.split(index, [n_train, n_train + n_val])
    return X[train], y[train], X[val], y[val], X[fresh], y[fresh]


def local_search(
    candidate: Candidate,
    data: tuple[np.ndarray, ...],
    *,
    k: int,
    start_features: int,
    toggles: int,
    stream: KeyedStream,
    cache: dict[tuple[frozenset[int], int], tuple[np.ndarray, float]],
) -> SearchOutcome:
    from sklearn.linear_model import RidgeClassifier

    X_train, y_train, X_val, y_val, X_fresh, y_fresh = data
    d = X_train.shape[1]

    def fitted(key: tuple[frozenset[int], int]) -> tuple[np.ndarray, float]:
        if key not in cache:
            cols = sorted(key[0])
            model = RidgeClassifier(alpha=float(ALPHAS[key[1]]))
            model.fit(X_train[:, cols], y_train)
            true_error = float(np.mean(model.predict(X_fresh[:, cols]) != y_fresh))
            cache[key] = (model.predict(X_val[:, cols]), true_error)
        return cache[key]

    moves = stream.derive("moves").generator(0)  # the same proposals for every guard
    features = frozenset(moves.choice(d, size=start_features, replace=False).tolist())
    incumbent = (features, len(ALPHAS) // 2)
    guard = candidate.build(y_val, stream.derive("guard"))
    labels: dict[str, tuple[frozenset[int], int]] = {}
    visited: dict[tuple[frozenset[int], int], float] = {}
    proposal = incumbent
    for query in range(k):
        if query:
            feats, alpha = incumbent
            if moves.random() < 0.8:
                toggled = moves.choice(d, size=int(moves.integers(1, toggles + 1)), replace=False)
                new = feats ^ set(toggled.tolist())
                proposal = (new if new else feats, alpha)
            else:
                step = 1 if moves.random() < 0.5 else -1
                proposal = (feats, min(max(alpha + step, 0), len(ALPHAS) - 1))
        predictions, true_error = fitted(proposal)
        visited[proposal] = true_error
        label = f"q{query}"
        labels[label] = proposal
        guard.score(predictions, label=label)
        if guard.history[-1].improved:
            incumbent = proposal
    best = guard.best
    assert best is not None and best.label is not None
    chosen_error = visited[labels[best.label]]
    improvements = sum(answer.improved for answer in guard.history)
    return SearchOutcome(chosen_error - best.score, chosen_error, improvements, visited)


def search_outcomes(
    candidates: tuple[Candidate, ...],
    *,
    k: int,
    reps: int,
    seed: int,
    n_train: int,
    n_val: int,
    start_features: int,
    toggles: int,
) -> tuple[dict[str, list[SearchOutcome]], np.ndarray]:
    out: dict[str, list[SearchOutcome]] = {c.label: [] for c in candidates}
    best_visited = np.empty(reps)
    for rep in range(reps):
        data = _digits_split(rep, seed, n_train, n_val)
        stream = KeyedStream.from_random_state(seed).derive(f"search/{rep}")
        cache: dict[tuple[frozenset[int], int], tuple[np.ndarray, float]] = {}
        lowest = math.inf
        for candidate in candidates:
            outcome = local_search(
                candidate,
                data,
                k=k,
                start_features=start_features,
                toggles=toggles,
                stream=stream,
                cache=cache,
            )
            out[candidate.label].append(outcome)
            lowest = min(lowest, min(outcome.visited.values()))
        best_visited[rep] = lowest
    return out, best_visited


# --------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("climb", "search", "both"), default="both")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--n", type=int, default=4000, help="climb: validation labels")
    parser.add_argument("--k", type=int, default=1000, help="climb: queries")
    parser.add_argument("--climb-reps", type=int, default=10)
    parser.add_argument("--search-k", type=int, default=300, help="search: candidates")
    parser.add_argument("--reps", type=int, default=10, help="search: repetitions")
    parser.add_argument("--n-train", type=int, default=700)
    parser.add_argument("--n-val", type=int, default=500)
    parser.add_argument("--start-features", type=int, default=6)
    parser.add_argument(
        "--toggles", type=int, default=1, help="search: a move toggles 1 to this many pixels"
    )
    parser.add_argument("--candidates", nargs="+", default=[c.label for c in CANDIDATES])
    args = parser.parse_args(argv)
    by_label = {c.label: c for c in CANDIDATES}
    unknown = [c for c in args.candidates if c not in by_label]
    if unknown:
        parser.error(f"unknown candidates {unknown}; known: {sorted(by_label)}")
    candidates = tuple(by_label[c] for c in args.candidates)
    began = time.perf_counter()
    print(
        f"GuardedHoldout's default: {DEFAULT_MECHANISM} "
        f"{GuardedHoldout(np.zeros(args.n_val)).mechanism.get_params()}; "
        "mean ± Student-t 95 % half-width; goal: the default's raw gain no larger than the "
        "fixed-step Ladder η=1/√n's (Blum & Hardt 2015, Thm 3.1), within intervals, under "
        "both searches; its cost, the searches' true error, beside it.\n"
    )

    if args.part in ("climb", "both"):
        root = 1 / math.sqrt(args.n)
        print(
            f"1. Near-duplicate hill-climbing, random labels: n = {args.n}, k = {args.k}, "
            f"{args.climb_reps} repetitions; raw gain = 0.5 − shown; 1/√n = {root:.4f}\n"
        )
        print("| guard | raw gain | × 1/√n | − Ladder η=1/√n (paired) | s |")
        print("|---|---|---|---|---|")
        gains: dict[str, np.ndarray] = {}
        seconds: dict[str, float] = {}
        for candidate in candidates:
            t0 = time.perf_counter()
            gains[candidate.label] = climb_gains(
                candidate, n=args.n, k=args.k, reps=args.climb_reps, seed=args.seed
            )
            seconds[candidate.label] = time.perf_counter() - t0
        ref = gains.get(REFERENCE)
        for candidate in candidates:
            interval = t_interval(gains[candidate.label])
            paired = (
                str(paired_difference(gains[candidate.label], ref))
                if ref is not None and candidate.label != REFERENCE
                else "–"
            )
            print(
                f"| {candidate.label} | {interval} | {interval.mean / root:.1f} | {paired} "
                f"| {seconds[candidate.label]:.0f} |"
            )
        print()

    if args.part in ("search", "both"):
        print(
            f"2. Greedy local search, ridge classifier on digits pixels: {args.n_train} "
            f"training, {args.n_val} validation, {1797 - args.n_train - args.n_val} fresh rows; "
            f"{args.search_k} candidates from {args.start_features} random pixels, a move "
            f"toggling 1 to {args.toggles} pixels or moving the penalty; "
            f"{args.reps} repetitions; 1/√n = {1 / math.sqrt(args.n_val):.4f}\n"
        )
        t0 = time.perf_counter()
        outcomes, best_visited = search_outcomes(
            candidates,
            k=args.search_k,
            reps=args.reps,
            seed=args.seed,
            n_train=args.n_train,
            n_val=args.n_val,
            start_features=args.start_features,
            toggles=args.toggles,
        )
        print(
            "| guard | raw gain | − no guard (paired) | true error | − no guard (paired) "
            "| − best visited (paired) | improvements taken |"
        )
        print("|---|---|---|---|---|---|---|")
        plain = np.array([o.true_error for o in outcomes.get(UNGUARDED, [])])
        plain_raw = np.array([o.raw_gain for o in outcomes.get(UNGUARDED, [])])
        for candidate in candidates:
            rows = outcomes[candidate.label]
            raw = np.array([o.raw_gain for o in rows])
            true = np.array([o.true_error for o in rows])
            taken = np.array([o.improvements for o in rows], dtype=float)
            paired = plain.size and candidate.label != UNGUARDED
            vs_plain = str(paired_difference(true, plain)) if paired else "–"
            raw_vs_plain = str(paired_difference(raw, plain_raw)) if paired else "–"
            print(
                f"| {candidate.label} | {t_interval(raw)} | {raw_vs_plain} | {t_interval(true)} "
                f"| {vs_plain} "
                f"| {paired_difference(true, best_visited)} | {t_interval(taken).mean:.1f} |"
            )
        print(
            f"| best visited, on the fresh rows | – | – | {t_interval(best_visited)} | – | – | – |"
        )
        print(f"\nsearch: {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"total {time.perf_counter() - began:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
