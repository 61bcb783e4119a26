"""Concurrent submitters and a crash in the middle of a submission, on SQLite
and PostgreSQL: the store ends as a sequential replay of what committed."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.engine import Competitions, submitting
from ladderboard.engine.audit import verify
from ladderboard.engine.errors import QuotaExceeded
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import MechanismStateRow, SubmissionRow

pytestmark = pytest.mark.slow

TEAMS = ("shared", "t1", "t2", "t3")
SHARED_QUOTA = 10


def solution() -> Solution:
    y = np.random.default_rng(0).integers(0, 2, 300)
    return Solution.from_labels(y, public_fraction=0.5, random_state=0)


def files(sol: Solution, count: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        p = np.where(rng.random(sol.n) < 0.4, 1 - sol.targets, sol.targets)
        rows = "\n".join(f"{i},{float(v)!r}" for i, v in zip(sol.ids, p, strict=True))
        out.append(f"{sol.id_column},{sol.target_columns[0]}\n{rows}\n".encode())
    return out


def setup(url: str, mechanism: str, board: str) -> None:
    store = Competitions.open(url)
    config = CompetitionConfig(
        score="zero_one",
        mechanism=mechanism,
        board=board,
        daily_quota=None,
        total_quota=SHARED_QUOTA,
    )
    store.create("race", solution(), config, random_state=3)
    for team in TEAMS:
        store.add_team("race", team)
    store.engine.dispose()


def submit_many(url: str, jobs: list[tuple[str, bytes]]) -> tuple[int, int]:
    """Submit ``jobs`` from this process; count successes and quota refusals."""
    store = Competitions.open(url, create_schema=False)
    ok = refused = 0
    for team, data in jobs:
        try:
            store.submit("race", team, data)
            ok += 1
        except QuotaExceeded:
            refused += 1
    store.engine.dispose()
    return ok, refused


@pytest.mark.parametrize(
    ("mechanism", "board"),
    [
        ("parameter-free-ladder", "per-team"),
        ("ladder-boot", "per-team"),
        ("ladder-boot", "per-rank"),
    ],
)
def test_threads_and_processes_interleaved(database_url, mechanism, board):
    setup(database_url, mechanism, board)
    sol = solution()
    # 14 attempts on the shared team (quota 10) and 4 on each other team.
    jobs = [("shared", f) for f in files(sol, 14, 1)]
    for k, team in enumerate(TEAMS[1:]):
        jobs += [(team, f) for f in files(sol, 4, 10 + k)]
    rng = np.random.default_rng(5)
    jobs = [jobs[i] for i in rng.permutation(len(jobs))]
    chunks = [jobs[i::10] for i in range(10)]  # 8 threads and 2 processes

    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        async_results = [pool.apply_async(submit_many, (database_url, c)) for c in chunks[8:]]
        with ThreadPoolExecutor(8) as threads:
            thread_results = list(threads.map(lambda c: submit_many(database_url, c), chunks[:8]))
        process_results = [r.get(timeout=300) for r in async_results]
    ok = sum(r[0] for r in thread_results + process_results)
    refused = sum(r[1] for r in thread_results + process_results)

    assert ok == SHARED_QUOTA + 4 * 3 and refused == 14 - SHARED_QUOTA
    store = Competitions.open(database_url, create_schema=False)
    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(SubmissionRow)) == ok
        # Every scope's sequence is 1..k without gaps or repeats.
        for scope, sequences in _sequences(session).items():
            assert sequences == list(range(1, len(sequences) + 1)), scope
    verify(store, "race")  # the stored state equals a sequential replay in commit order
    store.engine.dispose()


def _sequences(session: Session) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for scope, sequence in session.execute(
        select(SubmissionRow.scope, SubmissionRow.sequence).order_by(
            SubmissionRow.scope, SubmissionRow.sequence
        )
    ):
        out.setdefault(scope, []).append(sequence)
    return out


def _crashing_submitter(url: str, data: bytes, flag: str) -> None:
    """Submit, and stall inside the transaction after the state is computed."""
    store = Competitions.open(url, create_schema=False)
    from ladderboard.engine import instances

    dump = instances.dump

    def stalled(mechanism, **kwargs):
        state = dump(mechanism, **kwargs)
        with open(flag, "w") as f:
            f.write("in transaction")
        time.sleep(60)
        return state

    instances.dump = stalled
    store.submit("race", "t1", data)


def test_sigkill_mid_submission_leaves_a_consistent_store(database_url, tmp_path):
    setup(database_url, "ladder-boot", "per-team")
    sol = solution()
    first, second, third = files(sol, 3, 20)
    store = Competitions.open(database_url, create_schema=False)
    store.submit("race", "t1", first)
    with Session(store.engine) as session:
        before = session.execute(select(MechanismStateRow.state)).all()

    flag = tmp_path / "flag"
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=_crashing_submitter, args=(database_url, second, str(flag)))
    child.start()
    deadline = time.monotonic() + 120
    while not flag.exists():
        assert child.is_alive() and time.monotonic() < deadline, "the child never got there"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.join()

    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(SubmissionRow)) == 1
        assert session.execute(select(MechanismStateRow.state)).all() == before
    # The store takes the next submission (the killed writer's lock is gone) and audits clean.
    done = threading.Event()
    result = []

    def go():
        result.append(store.submit("race", "t1", third))
        done.set()

    threading.Thread(target=go, daemon=True).start()
    assert done.wait(90), "the store stayed locked after the crash"
    verify(store, "race")
    store.engine.dispose()


def test_a_read_left_open_does_not_hold_a_submission_up(database_url):
    """Board pages, the target lookup and the audit read through ``store.reader``:
    on SQLite a snapshot that takes no write lock (a ``BEGIN IMMEDIATE`` there
    would make every submission wait for the slowest reader)."""
    setup(database_url, "parameter-free-ladder", "per-team")
    sol = solution()
    first, second = files(sol, 2, 30)
    store = Competitions.open(database_url, create_schema=False)
    store.submit("race", "t1", first)
    done = threading.Event()
    with Session(store.reader) as reading:
        count = select(func.count()).select_from(SubmissionRow)
        assert reading.scalar(count) == 1  # the transaction is open from here

        def go():
            store.submit("race", "t2", second)
            done.set()

        threading.Thread(target=go, daemon=True).start()
        assert done.wait(30), "the submission waited for a reader"
        if store.engine.dialect.name == "sqlite":
            assert reading.scalar(count) == 1  # still the snapshot it began with
    with Session(store.reader) as reading:
        assert reading.scalar(count) == 2
    store.engine.dispose()


def test_a_file_still_being_compressed_does_not_hold_the_board_up(database_url, monkeypatch):
    """A submission waits for its file's hash and compressed copy (made on a
    worker thread) before it takes its board's lock (on SQLite the writer's
    turn too): another team's submission to the same per-rank board, which
    takes the same lock, is not held up by a slow compression."""
    setup(database_url, "ladder-boot", "per-rank")
    slow, quick = files(solution(), 2, 31)
    store = Competitions.open(database_url, create_schema=False)
    store.submit("race", "t3", files(solution(), 1, 32)[0])  # targets and solution read
    awaiting, release = threading.Event(), threading.Event()
    real = submitting.background

    class Held(Future):
        """The slow file's hash and copy: says when its submission waits for them."""

        def result(self, timeout=None):
            awaiting.set()
            return super().result(timeout)

    def background(function, *args):
        if function is not submitting.hash_and_pack or args[0] != slow:
            return real(function, *args)
        held = Held()

        def run() -> None:  # a thread of its own: the shared workers stay free
            release.wait(30)
            held.set_result(function(*args))

        threading.Thread(target=run, daemon=True).start()
        return held

    monkeypatch.setattr(submitting, "background", background)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(store.submit, "race", "t1", slow)
        try:
            assert awaiting.wait(30), "the slow submission never asked for its file's hash"
            second = pool.submit(store.submit, "race", "t2", quick)
            finished, _ = wait([second], timeout=10)
        finally:
            release.set()
        assert first.result(30).number == 1
        assert second.result(30).number == 1  # raises what the second submission raised
    assert finished, "a submission waited for another one's compression"
    assert verify(store, "race").submissions == 3
    store.engine.dispose()
