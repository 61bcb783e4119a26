"""The one row every submission updates, against the size of the holdout.

Each submission counts a change to its competition's boards with an UPDATE of
the competition's row (``bump_board_version``), in the transaction that
stores it. SQLite writes a row whole, so anything large kept in that row
would be read and written again by every submission. For SQLite stores whose
competitions hold solutions of ``--rows`` rows, it times that UPDATE alone
(one transaction each, committed) in turn with an UPDATE of a row holding one
integer, and reports the write-ahead log's growth per UPDATE.

The goal: the board's UPDATE costs what the one-integer row's does (a ratio
near 1), whatever the size of the solution.

    python benchmarks/bench_board_version.py [--rows 1e5 1e6 4e6] [--repeat 30]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from sqlalchemy import text

from _timing import alternating_medians
from ladderboard.engine import Competitions
from ladderboard.files import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import queries, statements
from ladderboard.store.database import writer_turn


def bench(folder: Path, n: int, repeat: int) -> None:
    path = folder / f"board-{n}.db"
    store = Competitions.open(f"sqlite:///{path}")
    rng = np.random.default_rng(n)
    solution = Solution.from_labels(rng.integers(0, 2, n), public_fraction=0.5, random_state=0)
    store.create(
        "c", solution, CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    )
    engine = store.engine
    with writer_turn(engine), engine.begin() as connection:
        connection.execute(text("CREATE TABLE bench_one (id INTEGER PRIMARY KEY, v INTEGER)"))
        connection.execute(text("INSERT INTO bench_one VALUES (1, 0)"))
        competition = connection.execute(text("SELECT id FROM competitions")).scalar_one()
        packed = len(queries.solution_file(connection, competition))

    def bump() -> None:
        with writer_turn(engine), engine.begin() as connection:
            statements.bump_board_version(connection, competition)

    def one() -> None:
        with writer_turn(engine), engine.begin() as connection:
            connection.execute(text("UPDATE bench_one SET v = v + 1"))

    wal = Path(f"{path}-wal")
    before = wal.stat().st_size if wal.exists() else 0
    for _ in range(repeat):
        bump()
    grown = (wal.stat().st_size - before) / repeat
    board, integer = alternating_medians([bump, one], repeat=repeat)
    print(
        f"{n:>9} {packed / 1e6:9.2f} {board * 1e3:10.3f} {integer * 1e3:10.3f} "
        f"{board / integer:6.2f} {grown / 1e3:12.1f}"
    )
    store.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e5, 1e6, 4e6])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    print("SQLite; one committed transaction each, timed in turn; goal: ratio near 1 at every size")
    print(
        f"{'rows':>9} {'solution':>9} {'board ms':>10} {'one-int ms':>10} {'ratio':>6} "
        f"{'WAL KB/UPDATE':>12}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for n in args.rows:
            bench(Path(folder), int(n), args.repeat)


if __name__ == "__main__":
    main()
