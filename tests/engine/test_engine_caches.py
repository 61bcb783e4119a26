"""What the engine keeps in process between submissions (the scope's
mechanism, the encodings of its arrays, the solution and configuration) never
changes what is released or stored: against a store that caches nothing, with
another process submitting in between, and after a failed transaction."""

from __future__ import annotations

import base64
import threading
import time
import zlib

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine_helpers import at_once
from ladderboard.encoding import decode_array, encode_array
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.engine.errors import DuplicateSubmission
from ladderboard.engine.kept_mechanisms import CachedMechanism
from ladderboard.engine.workers import ScratchPool
from ladderboard.files.solution import Solution
from ladderboard.files.submission import SubmissionError
from ladderboard.mechanisms import COMPETITION_MECHANISMS, Mechanism, ParameterFreeLadder
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import MechanismStateRow, SubmissionRow

MECHANISMS = ["parameter-free-ladder", "ladder-boot", "shaky-ladder"]


def solution() -> Solution:
    labels = np.random.default_rng(5).integers(0, 2, 600)
    return Solution.from_labels(labels, public_fraction=0.5, random_state=5)


def files(sol: Solution, count: int, seed: int = 1) -> list[bytes]:
    """Predictions that flip a share of the labels, the share falling and
    rising, so that some submissions improve the board and some do not."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        share = 0.45 - 0.3 * (i % 5) / 5
        flip = rng.random(sol.n) < share
        values = np.where(flip, 1 - sol.targets, sol.targets)
        body = "".join(f"{j},{int(v)}\n" for j, v in zip(sol.ids, values, strict=True))
        out.append(f"id,target\n{body}".encode())
    return out


def open_store(url: str, **kwargs) -> Competitions:
    return Competitions.open(url, **kwargs)


def create(store: Competitions, mechanism: str, slug: str = "c", **config) -> Solution:
    sol = solution()
    store.create(
        slug,
        sol,
        CompetitionConfig(score="zero_one", mechanism=mechanism, daily_quota=None, **config),
        random_state=9,
    )
    for team in ("a", "b", "c"):
        store.add_team(slug, team)
    return sol


def stored(store: Competitions) -> tuple[list, list]:
    with Session(store.engine) as session:
        states = session.execute(
            select(MechanismStateRow.scope, MechanismStateRow.state).order_by(
                MechanismStateRow.scope
            )
        ).all()
        releases = session.execute(
            select(
                SubmissionRow.team_id,
                SubmissionRow.sequence,
                SubmissionRow.public_score,
                SubmissionRow.improved,
            ).order_by(SubmissionRow.id)
        ).all()
    return [tuple(r) for r in states], [tuple(r) for r in releases]


BOARDS = [{"board": "per-team"}, {"board": "per-rank", "ranks": 2}]


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b["board"])
@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.slow
def test_two_engines_sharing_a_store_agree_with_one_that_caches_nothing(
    database_url, mechanism, board, tmp_path
):
    """Engines 1 and 2 take turns on one database (as two processes would),
    so each one's cached mechanisms are sometimes stale; a third store, on its
    own SQLite file and caching nothing, gets the same files in the same order.
    On the per-rank board of two ranks, submissions take the rank they hold,
    move a rank up past the entry they beat (which keeps its state from
    before the test) and push entries off the board."""
    first = open_store(database_url)
    second = open_store(database_url, create_schema=False)
    plain = open_store(f"sqlite:///{tmp_path / 'plain.db'}", mechanism_cache=0)
    sol = create(first, mechanism, **board)
    create(plain, mechanism, **board)
    data = files(sol, 20)
    order = [(0, "a"), (0, "a"), (1, "a"), (0, "b"), (0, "a"), (1, "b"), (1, "b"), (0, "b")]
    order += [(1, "a"), (1, "a"), (0, "a"), (0, "b"), (1, "a"), (0, "b")]
    order += [(0, "c"), (0, "c"), (0, "a"), (0, "c"), (1, "b"), (1, "c")]
    for (engine, team), blob in zip(order, data, strict=True):
        shared = (first, second)[engine].submit("c", team, blob)
        alone = plain.submit("c", team, blob)
        assert shared.public_score == alone.public_score
    assert stored(first) == stored(plain)
    verify(first, "c")
    for store in (first, second, plain):
        store.engine.dispose()


def flipped(sol: Solution, share: float, seed: int) -> bytes:
    """A file with ``share`` of the labels flipped."""
    flip = np.random.default_rng(seed).random(sol.n) < share
    values = np.where(flip, 1 - sol.targets, sol.targets)
    body = "".join(f"{j},{int(v)}\n" for j, v in zip(sol.ids, values, strict=True))
    return f"id,target\n{body}".encode()


@pytest.mark.parametrize("mechanism", ["parameter-free-ladder", "ladder-boot"])
def test_per_rank_instances_kept_between_submissions_are_the_stored_ones(
    database_url, mechanism, tmp_path
):
    """Team b beats team a's rank 1 from off the board: b's entry continues
    a's instance under a fresh key, and a's entry, one rank lower, keeps its
    state from before the test. Kept in memory instead, the instance b's
    submission advanced would answer a's next (rejected) submission with b's
    best. Then steady submissions read no rank's state from the store."""
    store = open_store(database_url)
    plain = open_store(f"sqlite:///{tmp_path / 'plain.db'}", mechanism_cache=0)
    sol = create(store, mechanism, board="per-rank", ranks=3)
    create(plain, mechanism, board="per-rank", ranks=3)
    steps = [("a", 0.3), ("b", 0.1), ("a", 0.45), ("c", 0.45), ("a", 0.45), ("b", 0.45)]
    for seed, (team, share) in enumerate(steps):
        blob = flipped(sol, share, seed)
        assert (
            store.submit("c", team, blob).public_score == plain.submit("c", team, blob).public_score
        )
    assert [row.team for row in store.board("c")] == ["b", "a", "c"]
    assert stored(store) == stored(plain)
    loads: list[type] = []
    load = Mechanism.from_state.__func__  # type: ignore[attr-defined]

    def counted(cls, state, **kwargs):
        loads.append(cls)
        return load(cls, state, **kwargs)

    counts: dict[str, list[int]] = {"kept": [], "plain": []}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Mechanism, "from_state", classmethod(counted))
        for seed, team in enumerate("cab", start=len(steps)):
            blob = flipped(sol, 0.45, seed)
            released = []
            for name, engine in (("kept", store), ("plain", plain)):
                loads.clear()
                released.append(engine.submit("c", team, blob).public_score)
                counts[name].append(len(loads))
            assert released[0] == released[1]
    # Rejected down to each team's own rank: c tests three ranks, a two, b one.
    assert counts == {"kept": [0, 0, 0], "plain": [3, 2, 1]}
    assert stored(store) == stored(plain)
    verify(store, "c")
    store.engine.dispose()
    plain.engine.dispose()


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b["board"])
@pytest.mark.slow
def test_a_failed_transaction_drops_the_cached_mechanism(
    database_url, board, tmp_path, monkeypatch
):
    """The advanced mechanism of a submission whose transaction fails (on a
    per-rank board, every instance it tested) is not reused: the next
    submission continues from the stored state."""
    store = open_store(database_url)
    plain = open_store(f"sqlite:///{tmp_path / 'plain.db'}", mechanism_cache=0)
    sol = create(store, "ladder-boot", **board)
    create(plain, "ladder-boot", **board)
    data = files(sol, 6)
    for blob in data[:3]:
        assert (
            store.submit("c", "a", blob).public_score == plain.submit("c", "a", blob).public_score
        )

    def fail(mechanism, **kwargs):  # after the mechanism advanced, before any write
        raise RuntimeError("the database went away")

    monkeypatch.setattr("ladderboard.engine.instances.dump", fail)
    with pytest.raises(RuntimeError, match="went away"):
        store.submit("c", "a", data[3])
    monkeypatch.undo()
    for blob in data[3:]:
        ours, theirs = store.submit("c", "a", blob), plain.submit("c", "a", blob)
        assert (ours.public_score, ours.remaining_today) == (
            theirs.public_score,
            theirs.remaining_today,
        )
    assert stored(store)[1] == stored(plain)[1]
    store.engine.dispose()
    plain.engine.dispose()


def test_an_unchanged_array_keeps_its_encoding_and_a_changed_one_is_encoded_again():
    ladder = ParameterFreeLadder(n=4)
    entry = CachedMechanism("k", ladder)
    ladder.submit(np.array([1.0, 1.0, 0.0, 1.0]))
    first = ladder.get_state(encode_vars=entry.encoded)
    assert first == ladder.get_state()
    ladder.submit(np.array([1.0, 1.0, 1.0, 1.0]))  # worse: nothing learned
    again = ladder.get_state(encode_vars=entry.encoded)
    assert again["vars"]["best_losses"]["array"] is first["vars"]["best_losses"]["array"]
    # Accepted: the ladder overwrites its buffer in place; the copy notices.
    ladder.submit(np.array([0.0, 0.0, 0.0, 0.0]))
    third = ladder.get_state(encode_vars=entry.encoded)
    assert third == ladder.get_state()
    assert third["vars"]["best_losses"]["array"] == encode_array(np.zeros(4))


def test_a_mechanism_loaded_from_its_state_keeps_the_encodings_of_its_arrays():
    """Another process's submission leaves this process's mechanism stale; the
    one loaded from the stored state reuses the state's encoding of an array
    that its next submission leaves unchanged, and encodes a changed one."""
    ladder = ParameterFreeLadder(n=4)
    ladder.submit(np.array([1.0, 1.0, 0.0, 1.0]))
    state = ladder.get_state()
    entry = CachedMechanism.loaded("k", Mechanism.from_state(state), state)
    entry.mechanism.submit(np.array([1.0, 1.0, 1.0, 1.0]))  # worse: nothing learned
    again = entry.mechanism.get_state(encode_vars=entry.encoded)
    assert again == entry.mechanism.get_state()
    assert again["vars"]["best_losses"]["array"] is state["vars"]["best_losses"]["array"]
    entry.mechanism.submit(np.zeros(4))  # accepted: the buffer is overwritten in place
    third = entry.mechanism.get_state(encode_vars=entry.encoded)
    assert third == entry.mechanism.get_state()
    assert third["vars"]["best_losses"]["array"] == encode_array(np.zeros(4))


def test_a_state_encoded_by_another_codec_is_encoded_again_by_this_one():
    """A zlib encoding (which installs without pyarrow wrote before) is not
    carried into new states: they are written in the one codec."""
    ladder = ParameterFreeLadder(n=4)
    ladder.submit(np.array([1.0, 1.0, 0.0, 1.0]))
    state = ladder.get_state()
    raw = decode_array(state["vars"]["best_losses"]["array"]).tobytes()
    state["vars"]["best_losses"]["array"] = {
        "dtype": "float64",
        "shape": [4],
        "zlib": base64.b64encode(zlib.compress(raw)).decode("ascii"),
    }
    entry = CachedMechanism.loaded("k", Mechanism.from_state(state), state)
    entry.mechanism.submit(np.array([1.0, 1.0, 1.0, 1.0]))  # worse: nothing learned
    assert entry.mechanism.get_state(encode_vars=entry.encoded) == entry.mechanism.get_state()


def test_the_cache_keeps_at_most_its_size():
    from ladderboard.engine.kept_mechanisms import MechanismCache

    cache = MechanismCache(size=2)
    entries = [CachedMechanism(i, ParameterFreeLadder(n=3)) for i in range(3)]
    for entry in entries:
        cache.put(entry, 1)
    assert cache.take(0, 1) is None  # evicted, the oldest
    assert cache.take(1, 2) is None  # stale count: refused, and removed
    assert cache.take(1, 1) is None
    assert cache.take(2, 1) is entries[2]
    assert cache.take(2, 1) is None  # taken: gone until put back


def test_the_cache_keeps_the_last_used_within_its_bytes_and_the_last_one_put():
    from ladderboard.engine.kept_mechanisms import MechanismCache

    def entry(key, n):
        kept = CachedMechanism(key, ParameterFreeLadder(n=n))
        kept.mechanism.submit(np.linspace(0.0, 1.0, n))
        kept.mechanism.get_state(encode_vars=kept.encoded)
        return kept

    small = [entry(i, 1000) for i in range(3)]
    one = small[0].nbytes
    assert one >= 2 * 8000  # the best losses and the copy they are compared against
    labels = np.tile([0.0, 1.0], 500)
    metric = CachedMechanism(
        "m", COMPETITION_MECHANISMS["metric-full-disclosure"](metric="auc", y_true=labels)
    )
    assert metric.nbytes >= labels.nbytes  # its own copy of the labels
    cache = MechanismCache(size=10, max_bytes=2 * one + one // 2)
    for kept in small:
        cache.put(kept, 1)
    assert cache.nbytes == 2 * one
    assert cache.take(0, 1) is None  # over the bytes: the least recently put went
    big = entry("big", 100_000)
    cache.put(big, 1)  # larger than the budget: kept alone, the last one put
    assert cache.nbytes == big.nbytes > cache.max_bytes
    assert cache.take(1, 1) is None and cache.take(2, 1) is None
    assert cache.take("big", 1) is big and cache.nbytes == 0


def test_the_submission_queries_search_an_index_on_sqlite(tmp_path):
    """A submission's checks must not scan the competition's submissions:
    each hot-path query is answered from an index (SQLite's query plan)."""
    from sqlalchemy.dialects import sqlite

    from ladderboard.store import statements as submitting

    store = open_store(f"sqlite:///{tmp_path / 'plan.db'}")
    queries = {
        "target": submitting.TARGET,
        "lock": submitting.LOCK_STATE,
        "team counts": submitting.TEAM_COUNTS,
        "other team": submitting.OTHER_TEAM,
        "counts": submitting.COUNTS,
        "invalid": submitting.INVALID,
        "team releases": submitting.TEAM_RELEASES,
        "update standing": submitting.UPDATE_STANDING,
        "bump board version": submitting.BUMP_BOARD_VERSION,
        "admission": submitting.ADMISSION,
        "member admission": submitting.MEMBER_ADMISSION,
    }
    with store.engine.connect() as connection:
        for name, query in queries.items():
            compiled = query.compile(dialect=sqlite.dialect())
            params = [compiled.params[key] or 0 for key in compiled.positiontup]
            plan = connection.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + str(compiled), tuple(params)
            ).all()
            steps = [row[-1] for row in plan]
            # A one-row subquery evaluated in place (a co-routine) may be scanned.
            inner = {step.split()[1] for step in steps if step.startswith("CO-ROUTINE")}
            scans = [s for s in steps if s.startswith("SCAN") and s.split()[1] not in inner]
            assert steps and not scans, (name, steps)
    store.engine.dispose()


LOSS_BASED = sorted(k for k, m in COMPETITION_MECHANISMS.items() if m.input_kind == "losses")


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
@pytest.mark.parametrize("mechanism", LOSS_BASED)
@pytest.mark.slow
def test_scoring_into_the_same_scratch_releases_what_new_arrays_would(
    database_url, mechanism, board, tmp_path
):
    """Every submission's losses go into one scratch (lent to this small
    holdout too), scribbled over with NaN each time it is given back: a
    mechanism that kept the array it was given instead of a copy, or a
    scratch given back before the mechanism took the losses, would change
    what is released or stored."""
    shared = open_store(database_url)
    pool = shared.caches.scratch
    pool.smallest = 1
    give_back = pool.give_back

    def scribbled(scratch):
        for array in (scratch.losses, scratch.public, scratch.private):
            array.fill(np.nan)
        give_back(scratch)

    pool.give_back = scribbled
    plain = open_store(f"sqlite:///{tmp_path / 'plain.db'}", mechanism_cache=0)
    plain.caches.scratch.smallest = 10**12
    for store in (shared, plain):
        sol = solution()
        config = CompetitionConfig(
            score="zero_one",
            mechanism=mechanism,
            mechanism_params={"eta": 0.01} if mechanism == "ladder" else {},
            board=board,
            daily_quota=None,
        )
        store.create("c", sol, config, random_state=9)
        for team in ("a", "b"):
            store.add_team("c", team)
    data = files(sol, 10, seed=3)
    for k, blob in enumerate(data):
        team = "ab"[k % 3 == 2]
        ours, theirs = shared.submit("c", team, blob), plain.submit("c", team, blob)
        assert ours.public_score == theirs.public_score
    # Refused after scoring (a resubmission) and before (a bad file): given back once.
    with pytest.raises(DuplicateSubmission):
        shared.submit("c", "a", data[0])
    with pytest.raises(SubmissionError):
        shared.submit("c", "a", data[0].replace(b",1\n", b",x\n", 1))
    assert pool.idle == 1
    assert plain.caches.scratch.idle == 0
    assert stored(shared) == stored(plain)
    verify(shared, "c")
    for store in (shared, plain):
        store.engine.dispose()


def test_the_scratch_pool_lends_each_scratch_to_one_submission_and_keeps_few():
    sol = solution()  # 600 rows
    pool = ScratchPool(idle_bytes=5 * 8 * sol.n, smallest=sol.n)  # 2 of 600 rows and 1 of 700
    first, second = pool.lend(sol), pool.lend(sol)
    assert first is not None and second is not None and first is not second
    assert first.fits(sol.n, sol.public_rows.size, sol.private_rows.size)
    pool.give_back(first)
    assert pool.lend(sol) is first
    pool.give_back(first)
    pool.give_back(second)
    other = Solution.from_labels(np.zeros(700, dtype=int), public_fraction=0.5, random_state=1)
    third = pool.lend(other)
    pool.give_back(third)  # three kept would pass idle_bytes (6.5 x 8 x 600): the oldest goes
    assert pool.idle == 2
    assert pool.lend(other) is third and pool.lend(sol) is second
    huge = ScratchPool(idle_bytes=1, smallest=1)  # the last one given back is kept
    huge.give_back(first)
    huge.give_back(second)
    assert huge.idle == 1 and huge.lend(sol) is second
    small = ScratchPool(smallest=sol.n + 1)
    with small.lent(sol) as scratch:
        assert scratch is None
    assert small.idle == 0


def test_a_solution_missing_from_the_cache_is_parsed_once_for_every_thread_that_needs_it(
    monkeypatch,
):
    """The first submissions to a worker arrive together: one thread parses
    the solution, the others wait for it; after a failed read, each of them
    reads it (once: none waits for every other to fail in turn)."""
    from ladderboard.engine.caches import SolutionCache
    from ladderboard.store.blobs import pack

    sol = solution()
    blob = pack(sol.to_csv())
    parsed = []
    from_csv = Solution.from_csv

    def slow_parse(data):
        parsed.append(threading.get_ident())
        time.sleep(0.05)  # long enough for every other thread to ask meanwhile
        return from_csv(data)

    monkeypatch.setattr(Solution, "from_csv", staticmethod(slow_parse))

    reads = []
    fails = {1: 0, 2: 1}  # a competition's reads that fail before one succeeds

    def solution_file(connection, competition_id: int) -> bytes:  # the store's read
        reads.append(competition_id)
        if reads.count(competition_id) <= fails[competition_id]:
            time.sleep(0.05)  # the others ask meanwhile
            raise OSError("the store went away")
        return blob

    from ladderboard.engine import caches

    monkeypatch.setattr(caches.queries, "solution_file", solution_file)
    cache = SolutionCache()

    def get(ident: int):
        return cache.lookup(ident, "sha", connection=None)

    found = at_once(lambda: get(1), 8)
    assert len(parsed) == 1
    assert all(f is found[0] for f in found)
    assert np.array_equal(found[0].targets, sol.targets)

    # A read that fails: the threads that waited for it each read it once, at once.
    outcomes = at_once(lambda: get(2), 4)
    solutions = [o for o in outcomes if not isinstance(o, OSError)]
    assert len(solutions) == 3 and len(outcomes) - len(solutions) == 1
    assert reads.count(2) == 4 and len(parsed) == 1 + 3  # one failed read, three that parsed
    kept = at_once(lambda: get(2), 1)[0]
    assert any(kept is o for o in solutions) and len(parsed) == 4


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_a_board_missing_from_the_cache_is_built_once_for_every_reader_that_asks_for_it(
    database_url, board, monkeypatch
):
    """After a restart or a submission a board's readers arrive together: one
    of them builds (or patches) the board while the others wait for it, and
    all are handed the same board, the one a store that kept nothing builds."""
    from ladderboard.engine.boards import Boards
    from ladderboard.engine.kept_board import KeptBoard

    made: list[str] = []

    def slowed(name, function):
        def run(*args, **kwargs):
            made.append(name)
            time.sleep(0.05)  # long enough for every other reader to ask meanwhile
            return function(*args, **kwargs)

        return run

    for name, owner in [
        ("build", KeptBoard),
        ("patched", KeptBoard),
        ("_public_board", Boards),
        ("_private_board", Boards),
    ]:
        monkeypatch.setattr(owner, name, slowed(name, getattr(owner, name)))

    store = open_store(database_url)
    sol = create(store, "parameter-free-ladder", board=board)
    data = files(sol, 4)
    for team, blob in zip("abc", data, strict=False):
        store.submit("c", team, blob)
    public = "build" if board == "per-team" else "_public_board"

    def readers(**kwargs) -> list:
        made.clear()
        found = at_once(lambda: store.board("c", **kwargs), 8)
        assert all(f is found[0] for f in found)
        fresh = open_store(database_url)  # keeps nothing yet
        assert found[0] == fresh.board("c", **kwargs)
        fresh.engine.dispose()
        return made[:-1]  # what the fresh store built is not counted

    assert readers() == [public]
    store.submit("c", "a", data[3])
    assert readers() == ["patched" if board == "per-team" else "_public_board"]
    assert readers(board="private", organiser=True) == ["_private_board"]
    store.engine.dispose()


def test_the_board_cache_hands_out_boards_by_version_and_shares_each_build():
    """A per-rank or private board is handed out at the reader's very
    version, a per-team one at a later version too (it holds every change up
    to the reader's). Readers asking at one version share one build, whether
    or not the cache keeps it; if that build fails, each reader that waited
    builds its own at once, not one after another."""
    from ladderboard.engine.caches import BoardCache

    exact, later = BoardCache(), BoardCache(later=True)
    for cache in (exact, later):
        cache.put("k", 5, "board 5")
        assert cache.get("k", 5) == "board 5" and cache.get("k", 6) is None
    assert exact.get("k", 4) is None
    assert later.get("k", 4) == "board 5"

    nothing = BoardCache(size=0)  # keeps no board: the waiters are handed the one built
    built: list[int] = []

    def build() -> object:
        built.append(7)
        time.sleep(0.05)  # long enough for every other reader to ask meanwhile
        return object()

    found = at_once(lambda: nothing.made("k", 7, build), 6)
    assert built == [7] and all(f is found[0] for f in found)

    lock = threading.Lock()
    running, most = [0], [0]
    calls: list[int] = []

    def failing() -> str:
        with lock:
            calls.append(1)
            first = len(calls) == 1
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        if first:
            raise OSError("the store went away")
        return "board"

    outcomes = at_once(lambda: exact.made("j", 1, failing), 4)
    assert sum(isinstance(o, OSError) for o in outcomes) == 1
    assert outcomes.count("board") == 3 and len(calls) == 4
    assert most[0] == 3  # the three that waited built at once
