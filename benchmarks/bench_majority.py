"""The majority attack against Hardt 2017's App. B listing run as printed.

Same inputs: the listing on ``RandomState(seed)``, ``majority_attack`` with
``draws="listing"`` (the same draws, same results bit for bit), and the keyed
default (same sizes, its own draws, vectorised in packed bits). Times are for
``reps`` repetitions at each ``(n, k)``; ratios are the listing's time over ours.

    python benchmarks/bench_majority.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from _timing import median_seconds
from ladderboard.attacks import majority_attack

_spec = importlib.util.spec_from_file_location(
    "reference_attacks", Path(__file__).resolve().parents[1] / "tests" / "reference_attacks.py"
)
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def bench(n: int, k: int, reps: int, sigma: float) -> None:
    def listing() -> None:
        rs = np.random.RandomState(0)
        for _ in range(reps):
            reference.majority_attack(n, k, sigma, random=rs)

    def same_draws() -> None:
        majority_attack(n=n, k=k, sigma=sigma, repetitions=reps, random_state=0, draws="listing")

    def keyed() -> None:
        majority_attack(n=n, k=k, sigma=sigma, repetitions=reps, random_state=0)

    t_listing = median_seconds(listing, repeat=3)
    t_same = median_seconds(same_draws, repeat=3)
    t_keyed = median_seconds(keyed, repeat=3)
    print(
        f"{n:>6} {k:>6} {reps:>5} {t_listing:>9.3f}s {t_same:>9.3f}s {t_listing / t_same:>6.1f}"
        f" {t_keyed:>9.3f}s {t_listing / t_keyed:>6.1f}"
    )


def main() -> None:
    print(
        f"{'n':>6} {'k':>6} {'reps':>5} {'listing':>10} {'same draws':>10} {'ratio':>6}"
        f" {'keyed':>10} {'ratio':>6}"
    )
    for n, k in ((4000, 100), (4000, 1000), (10000, 2000)):
        bench(n, k, reps=10, sigma=3 / np.sqrt(n))


if __name__ == "__main__":
    main()
