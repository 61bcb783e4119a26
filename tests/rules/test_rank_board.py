"""The per-rank board: hand-checked placements, and the Sybil case, where one
person with many accounts climbs a per-team board but not a per-rank one."""

from __future__ import annotations

import numpy as np
import pytest

from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import Mechanism, ParameterFreeLadder
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.rank_board import RankBoard


def board(size: int) -> RankBoard:
    return RankBoard(
        size=size,
        entries=[],
        created=0,
        load=lambda entry: Mechanism.from_state(entry["state"]),
        fresh=lambda instance: ParameterFreeLadder(),
        dump=lambda mechanism: mechanism.get_state(),
    )


def losses(errors: int, n: int = 20) -> np.ndarray:
    """Errors on the first ``errors`` points: nested, so each is significant."""
    x = np.zeros(n)
    x[:errors] = 1.0
    return x


def test_placements_by_hand():
    b = board(3)
    # An empty rank accepts: A takes rank 1 at 10/20.
    first = b.submit(1, 1, losses(10))
    assert (first.score, first.improved, first.rank) == (0.5, True, 1)
    # B beats A's instance: inserted at rank 1, A moves to 2.
    assert b.submit(2, 2, losses(4)).rank == 1
    assert b.teams() == [2, 1]
    # C beats neither: the next empty rank (3) accepts it.
    assert b.submit(3, 3, losses(15)).rank == 3
    # D is worse than all and the board is full: answered with rank 3's release.
    d = b.submit(4, 4, losses(18))
    assert (d.score, d.improved, d.rank) == (0.75, False, None)
    # C improves on its own rank in place.
    assert b.submit(3, 5, losses(12)).rank == 3 and b.teams() == [2, 1, 3]
    # A jumps to the top: its old entry leaves, everyone else moves down.
    top = b.submit(1, 6, losses(1))
    assert (top.rank, b.teams()) == (1, [1, 2, 3])
    # E beats rank 3 (C): inserted there; C falls off the board.
    assert b.submit(5, 7, losses(5)).rank == 3
    assert b.teams() == [1, 2, 5]


def test_a_team_is_only_tested_down_to_its_own_rank():
    b = board(3)
    b.submit(1, 1, losses(10))
    b.submit(2, 2, losses(14))
    # Team 1 submits something that would beat rank 2 but not its own rank 1.
    outcome = b.submit(1, 3, losses(11))
    assert (outcome.improved, outcome.rank, outcome.score) == (False, 1, 0.5)
    assert b.teams() == [1, 2]


def test_rejected_tests_advance_the_instances():
    b = board(2)
    b.submit(1, 1, losses(5))
    b.submit(2, 2, losses(5)[::-1].copy())  # rejected by rank 1, accepted by empty rank 2
    b.submit(3, 3, losses(19))  # rejected by both ranks
    # Rank 1's instance saw all three submissions, rank 2's the last two.
    assert [e["state"]["n_submissions"] for e in b.entries] == [3, 2]


def test_inserted_copies_get_fresh_keys():
    b = board(3)
    b.submit(1, 1, losses(10))
    b.submit(2, 2, losses(4))
    instances = [entry["instance"] for entry in b.entries]
    assert len(set(instances)) == 2 and b.created == 2


# --------------------------------------------------------------------- Sybil
N = 600  # 300 public labels


def sybil_run(url: str, board_mode: str, seed: int) -> tuple[float, float, bool]:
    """Ten honest teams, then one person with 80 accounts runs the boosting
    attack: every account submits one random vector, the vectors released at
    or below 1/2 are kept, and their majority is submitted from a new account.
    Returns that account's released score, its private error, and whether it
    got onto the board."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    solution = Solution.from_labels(y, public_fraction=0.5, random_state=seed)
    store = Competitions.open(url)
    slug = f"sybil-{board_mode}"
    store.create(
        slug,
        solution,
        CompetitionConfig(
            score="zero_one",
            mechanism="parameter-free-ladder",
            board=board_mode,
            ranks=10,
            daily_quota=None,
        ),
        random_state=seed,
    )

    def submit(team: str, predictions: np.ndarray):
        store.add_team(slug, team)
        rows = "\n".join(
            f"{i},{float(v)!r}" for i, v in zip(solution.ids, predictions, strict=True)
        )
        return store.submit(slug, team, f"id,target\n{rows}\n".encode())

    for k in range(10):
        flips = rng.random(N) < 0.25 + 0.015 * k
        submit(f"honest-{k}", np.where(flips, 1 - y, y))
    kept = []
    for k in range(80):
        guess = rng.integers(0, 2, N)
        if submit(f"sybil-{k}", guess).public_score <= 0.5:
            kept.append(guess)
    final = (np.mean(kept, axis=0) > 0.5).astype(float) if kept else rng.integers(0, 2, N)
    result = submit("sybil-final", final)
    on_board = any(r.team.startswith("sybil") for r in store.leaderboard(slug))
    private = float(np.mean(final[solution.private_mask] != y[solution.private_mask]))
    store.engine.dispose()
    return result.public_score, private, on_board


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_sybil_climbs_per_team_but_not_per_rank(database_url, seed):
    score, private, on_board = sybil_run(database_url, "per-team", seed)
    # Each new account's first submission is released as it is: full disclosure.
    assert on_board and score < private - 0.05
    score, private, on_board = sybil_run(database_url, "per-rank", seed)
    # The board is full of honest teams; no account learns anything.
    assert not on_board and abs(private - 0.5) < 0.08
