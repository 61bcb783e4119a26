"""The ``ladderboard demo``: honest teams and a boosting attacker on two boards.

The set-up of Blum & Hardt 2015, Sec. 5.1 (SPEC E1): a holdout of
``n_labels`` binary labels, of which a hidden subset of ``n_public`` scores the
public board; the remaining labels are fresh data that stand in for the true
score. Each team submits predictions for the whole holdout, to a Kaggle board
(:class:`~ladderboard.mechanisms.FullDisclosure`, five decimals) and to a
:class:`~ladderboard.mechanisms.ParameterFreeLadder` board, one mechanism per
team per board (per-team boards, Ladder Sec. 2.1).

Honest teams submit noisy copies of the labels that get better with each
submission (a real model improving). The attacker never looks at a label: it
runs :func:`~ladderboard.attacks.boosting_attack` with ``k`` random guesses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.table import Table

from ladderboard._validation import check_int
from ladderboard.attacks import HoldoutOracle, boosting_attack
from ladderboard.mechanisms import FullDisclosure, Mechanism, ParameterFreeLadder
from ladderboard.random import KeyedStream

__all__ = ["ATTACKER", "BOARDS", "HONEST_TEAMS", "DemoResult", "TeamResult", "run_demo"]

BOARDS: dict[str, Callable[[], Mechanism]] = {
    "FullDisclosure": lambda: FullDisclosure(precision=1e-5),
    "ParameterFreeLadder": ParameterFreeLadder,
}
"""The two boards, by name: the Kaggle mechanism and the parameter-free Ladder."""

HONEST_TEAMS: dict[str, tuple[float, ...]] = {
    "honest-1": (0.40, 0.35, 0.30, 0.25),
    "honest-2": (0.45, 0.42, 0.39, 0.36),
    "honest-3": (0.48, 0.46, 0.45, 0.44),
}
"""Each honest team's submissions, as the share of labels each one gets wrong."""

ATTACKER = "boosting"


@dataclass(frozen=True, slots=True)
class TeamResult:
    """One team's outcome on each board, by board name.

    ``public`` is the score released for the team's last submission; ``true``
    is that submission's error on the fresh labels.
    """

    team: str
    submissions: int
    public: dict[str, float]
    true: dict[str, float]


@dataclass(frozen=True, slots=True)
class DemoResult:
    """Everything :func:`run_demo` measured, with its settings."""

    n_labels: int
    n_public: int
    k: int
    seed: int
    teams: tuple[TeamResult, ...]

    def team(self, name: str) -> TeamResult:
        """The result of the team called ``name``."""
        for result in self.teams:
            if result.team == name:
                return result
        raise KeyError(name)


def run_demo(
    *, n_labels: int = 12000, n_public: int = 4000, k: int = 400, seed: int = 0
) -> DemoResult:
    """Run the honest teams and the boosting attacker on both boards.

    Every draw comes from ``KeyedStream.from_random_state(seed)``: the holdout
    from sub-stream 0, honest team ``j`` from ``j + 1``, and the attacker's key
    from the one after, so a seed reproduces the whole table.

    >>> result = run_demo(n_labels=3000, n_public=1000, k=100, seed=0)
    >>> attacker = result.team("boosting")
    >>> attacker.public["FullDisclosure"] < attacker.public["ParameterFreeLadder"]
    True
    """
    n_labels = check_int("n_labels", n_labels, 3)
    n_public = check_int("n_public", n_public, 2)
    k = check_int("k", k, 1)
    if n_public >= n_labels:
        raise ValueError(
            f"n_public must be smaller than n_labels={n_labels}, leaving fresh labels; "
            f"got {n_public}"
        )
    seed = check_int("seed", seed, 0)
    stream = KeyedStream.from_random_state(seed)

    holdout = stream.generator(0)
    labels = holdout.integers(0, 2, size=n_labels, dtype=np.int8)
    public = np.sort(holdout.permutation(n_labels)[:n_public])
    fresh = np.ones(n_labels, dtype=bool)
    fresh[public] = False

    def oracle(board: str) -> HoldoutOracle:
        return HoldoutOracle(
            labels[public], BOARDS[board](), public_index=public, n_labels=n_labels
        )

    def true_error(prediction: np.ndarray) -> float:
        return float(np.mean(prediction[fresh] != labels[fresh]))

    teams = []
    for j, (team, flip_rates) in enumerate(HONEST_TEAMS.items(), start=1):
        rng = stream.generator(j)
        oracles = {board: oracle(board) for board in BOARDS}
        public_scores: dict[str, float] = {}
        for rate in flip_rates:
            prediction = labels ^ (rng.random(n_labels) < rate).astype(np.int8)
            public_scores = {board: o.submit(prediction) for board, o in oracles.items()}
        error = true_error(prediction)
        teams.append(TeamResult(team, len(flip_rates), public_scores, dict.fromkeys(BOARDS, error)))

    attacker_key = stream.generator(len(HONEST_TEAMS) + 1).bytes(16)
    attacks = {
        board: boosting_attack(oracle(board), n_labels=n_labels, k=k, random_state=attacker_key)
        for board in BOARDS
    }
    teams.append(
        TeamResult(
            ATTACKER,
            k + 1,
            {board: a.score for board, a in attacks.items()},
            {board: true_error(a.prediction) for board, a in attacks.items()},
        )
    )
    return DemoResult(n_labels, n_public, k, seed, tuple(teams))


def demo_table(result: DemoResult) -> Table:
    """The demo's results as a rich table, one row per team."""
    table = Table(
        title=(
            f"{result.n_labels} labels, {result.n_public} public, "
            f"boosting with k = {result.k}, seed {result.seed}"
        ),
        caption=(
            "public: the score released for the team's last submission; "
            "true: that submission's error on the fresh labels. "
            f"Honest teams submit {_honest_submissions()} times, the attacker k + 1."
        ),
    )
    table.add_column("team")
    for board in BOARDS:
        table.add_column(f"{board} public", justify="right")
        table.add_column("true", justify="right")
    for team in result.teams:
        cells = [team.team]
        for board in BOARDS:
            cells += [f"{team.public[board]:.5f}", f"{team.true[board]:.4f}"]
        style = "bold red" if team.team == ATTACKER else None
        table.add_row(*cells, style=style)
    return table


def _honest_submissions() -> str:
    counts = sorted({len(rates) for rates in HONEST_TEAMS.values()})
    return "/".join(map(str, counts))


def demo_summary(result: DemoResult) -> str:
    """A few sentences on what the table shows."""
    attacker = result.team(ATTACKER)
    honest = [t for t in result.teams if t.team != ATTACKER]
    errors = " and ".join(f"{attacker.true[board]:.3f}" for board in BOARDS)
    lines = [
        f"The boosting attacker never saw a label: on fresh data its final submissions "
        f"err {errors}, coin flips."
    ]
    for board in BOARDS:
        beaten = sum(attacker.public[board] < t.public[board] for t in honest)
        lines.append(
            f"{board} shows it at {attacker.public[board]:.3f}, "
            f"ahead of {beaten} of the {len(honest)} honest teams."
        )
    return "\n".join(lines)
