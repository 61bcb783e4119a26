"""Writers of one SQLite file take turns in the process before SQLite's own
lock, and reads never take that lock."""

from __future__ import annotations

import contextlib
import os
import select
import sqlite3
import subprocess
import sys
import threading

from ladderboard.store import RateLimits, make_engine, migrate
from ladderboard.store.database import writer_turn


def test_a_rate_limit_read_does_not_wait_for_a_writer(tmp_path):
    """``RateLimits.wait`` only reads: it answers while another connection
    holds the write lock (it used to open a writer's transaction, and so
    queued behind every submission, on every request)."""
    path = tmp_path / "store.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    limits = RateLimits(engine, clock=lambda: 1000.0)
    assert limits.take("k", per_minute=1) == 0
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    answers: list[int] = []
    reader = threading.Thread(target=lambda: answers.append(limits.wait("k", per_minute=1)))
    try:
        reader.start()
        reader.join(timeout=30)  # a writer would wait out the 60 s busy timeout
        finished = not reader.is_alive()
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        reader.join()
        limits.dispose()
        engine.dispose()
    assert finished
    assert answers == [60]  # the one request a minute is spent: wait a minute


def test_writers_of_one_file_share_one_turn(tmp_path):
    """Every engine on the same file (the store's, the rate limits' own)
    shares one turn; other files, memory and PostgreSQL have their own or
    none; a thread holding its turn may take it again while another thread
    waits, and so does another process (through the lock file)."""
    first = make_engine(f"sqlite:///{tmp_path / 'a.db'}")
    again = make_engine(f"sqlite:///{tmp_path / 'a.db'}?synchronous=normal")
    other = make_engine(f"sqlite:///{tmp_path / 'b.db'}")
    turn = writer_turn(first)
    assert writer_turn(again) is turn
    assert writer_turn(other) is not turn
    assert isinstance(writer_turn(make_engine("sqlite://")), contextlib.nullcontext)
    order: list[str] = []

    def wait_for_turn() -> None:
        with turn:
            order.append("other thread")

    probe = (
        "import fcntl, sys; f = open(sys.argv[1], 'a+b')\n"
        "try: fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "except BlockingIOError: sys.exit(3)"
    )
    lock_file = str(tmp_path / "a.db-writer")
    with turn, writer_turn(again):  # re-entrant
        waiting = threading.Thread(target=wait_for_turn)
        waiting.start()
        waiting.join(timeout=0.5)  # the other thread cannot get in meanwhile
        held_elsewhere = subprocess.run([sys.executable, "-c", probe, lock_file]).returncode
        order.append("holder done")
    waiting.join()
    assert order == ["holder done", "other thread"]
    assert held_elsewhere == 3  # another process finds the lock file locked
    assert subprocess.run([sys.executable, "-c", probe, lock_file]).returncode == 0
    for engine in (first, again, other):
        engine.dispose()


def test_a_forked_child_takes_its_own_turn(tmp_path):
    """A process forked while its parent holds the writer turn neither
    inherits the parent's thread lock (it would never be released there)
    nor its lock file (which would then outlive the parent): the child waits
    for the parent's write to end, then writes."""
    engine = make_engine(f"sqlite:///{tmp_path / 'a.db'}")
    turn = writer_turn(engine)
    read, write = os.pipe()
    with turn:
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the child
            os.close(read)
            status = 1
            try:
                with turn:
                    os.write(write, b"in")
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        waited = select.select([read], [], [], 0.5)[0]
    try:
        entered = select.select([read], [], [], 30)[0] and os.read(read, 2)
    finally:
        _, status = os.waitpid(child, 0)
        os.close(read)
        engine.dispose()
    assert not waited  # the child waited while the parent wrote
    assert entered == b"in" and os.waitstatus_to_exitcode(status) == 0
