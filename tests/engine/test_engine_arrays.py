"""Large arrays of mechanism states are stored once, by hash (migration 0004):
the stored states stay small, an array is written only when it changes, two
engines and a store that caches nothing agree, states written inline before
0004 are still read, and ``verify`` passes, for per-team and per-rank boards."""

from __future__ import annotations

import base64
import json
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session
from test_engine_caches import stored

from ladderboard.encoding import decode_array, encode_array
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import MechanismArrayRow
from ladderboard.store import arrays as stored_arrays
from ladderboard.store.arrays import array_refs, fill, spill

N = 4000  # 2000 public rows of log loss: an encoded best far above SPILL_CHARS


def solution() -> Solution:
    labels = np.random.default_rng(3).integers(0, 2, N)
    return Solution.from_labels(labels, public_fraction=0.5, random_state=3)


def files(sol: Solution, count: int, seed: int = 4) -> list[bytes]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        skill = 0.05 + 0.3 * ((i * 7) % 5) / 5  # some submissions improve, some do not
        p = np.clip(
            np.where(sol.targets == 1, 0.5 + skill, 0.5 - skill) + rng.normal(0, 0.2, sol.n),
            0.01,
            0.99,
        )
        body = "".join(f"{j},{v:.4f}\n" for j, v in zip(sol.ids, p, strict=True))
        out.append(f"id,target\n{body}".encode())
    return out


def create(store: Competitions, board: str = "per-team") -> None:
    store.create(
        "c",
        solution(),
        CompetitionConfig(
            score="log_loss", mechanism="parameter-free-ladder", board=board, daily_quota=None
        ),
        random_state=11,
    )
    for team in ("a", "b"):
        store.add_team("c", team)


def array_rows(store: Competitions) -> int:
    with Session(store.engine) as session:
        return session.scalar(select(func.count()).select_from(MechanismArrayRow))


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_states_refer_to_arrays_stored_once(database_url, board):
    store = Competitions.open(database_url)
    create(store, board)
    written = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def count(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("INSERT INTO MECHANISM_ARRAYS"):
            written.append(len(parameters) if executemany else 1)

    data = files(solution(), 12)
    for i, blob in enumerate(data):
        store.submit("c", "ab"[i % 2], blob)
    states, releases = stored(store)
    improved = sum(1 for r in releases if r[3])
    assert 0 < improved < len(releases)
    for _, state in states:
        assert len(json.dumps(state)) < stored_arrays.SPILL_CHARS  # the arrays live apart
        assert array_refs(state)
    # An array is written when a best changes, not with every submission's state.
    assert 0 < sum(written) <= improved
    assert array_rows(store) == sum(written)
    assert verify(store, "c").submissions == len(data)
    store.engine.dispose()


def test_engines_sharing_arrays_agree_with_one_that_caches_nothing(database_url, tmp_path):
    """Two engines alternate on one store (each misses its cache whenever the
    other has submitted, and fills the state from the stored arrays); a third,
    caching nothing, replays the same files on a store of its own."""
    first, second = Competitions.open(database_url), Competitions.open(database_url)
    create(first)
    reference = Competitions.open(f"sqlite:///{tmp_path / 'reference.db'}", mechanism_cache=0)
    create(reference)
    for i, blob in enumerate(files(solution(), 10)):
        team = "ab"[(i // 2) % 2]
        (first if i % 3 else second).submit("c", team, blob)
        reference.submit("c", team, blob)
    assert stored(first) == stored(reference)
    for store in (first, second, reference):
        store.engine.dispose()


def test_arrays_once_read_or_written_are_not_read_again(database_url):
    """A per-rank board rebuilds its mechanisms from the stored state at every
    submission: the arrays it refers to come from memory once this process
    has read or written them (they never change under their hash), and from
    the store for another process."""
    store = Competitions.open(database_url)
    create(store, "per-rank")
    reads = []

    def counting(engine):
        @event.listens_for(engine, "before_cursor_execute")
        def count(conn, cursor, statement, parameters, context, executemany):
            if "FROM mechanism_arrays" in statement:
                reads.append(statement)

    counting(store.engine)
    data = files(solution(), 8)
    for i, blob in enumerate(data[:6]):
        store.submit("c", "ab"[i % 2], blob)
    assert reads == []
    other = Competitions.open(database_url)
    counting(other.engine)
    other.submit("c", "a", data[6])
    assert len(reads) == 1
    store.submit("c", "b", data[7])  # the other's new arrays: read once
    assert len(reads) <= 2
    assert verify(store, "c").submissions == len(data)
    for engine in (store.engine, other.engine):
        engine.dispose()


def test_a_decoding_is_reused_only_for_the_same_payload():
    from ladderboard.encoding import decode_array

    values = np.random.default_rng(3).normal(size=50)
    encoded = encode_array(values)
    first = decode_array(encoded)
    first[:] = 0  # the caller's own copy
    again = decode_array(encoded)
    assert np.array_equal(again, values) and again is not first
    reshaped = {**encoded, "shape": [5, 10]}  # the same payload string, another shape
    assert decode_array(reshaped).shape == (5, 10)
    with pytest.raises((ValueError, OSError)):  # not the 50 values decoded before
        decode_array({**encoded, "shape": [51]})


def test_states_stored_inline_before_0004_are_read(database_url, monkeypatch):
    store = Competitions.open(database_url)
    create(store)
    data = files(solution(), 8)
    monkeypatch.setattr(stored_arrays, "SPILL_CHARS", 10**12)  # as before 0004: nothing spills
    for blob in data[:4]:
        store.submit("c", "a", blob)
    states, _ = stored(store)
    assert array_rows(store) == 0 and not any(array_refs(s) for _, s in states)
    monkeypatch.undo()
    store.caches.mechanisms.clear()  # a new process: the state is read from the store
    for blob in data[4:]:
        store.submit("c", "a", blob)
    states, _ = stored(store)
    assert array_rows(store) > 0 and all(array_refs(s) for _, s in states if s is not None)
    assert verify(store, "c").submissions == len(data)
    store.engine.dispose()


def test_a_missing_array_is_an_error_not_a_fresh_board(database_url):
    store = Competitions.open(database_url)
    create(store)
    for blob in files(solution(), 3):
        store.submit("c", "a", blob)
    with store.engine.begin() as connection:
        connection.execute(MechanismArrayRow.__table__.delete())
    store.engine.dispose()
    fresh = Competitions.open(database_url)  # another process: nothing in memory
    with pytest.raises(LookupError, match="not stored"):
        fresh.submit("c", "a", files(solution(), 4, seed=9)[3])
    fresh.engine.dispose()


encoded_arrays = st.integers(0, 60).map(
    lambda n: encode_array(np.random.default_rng(n).normal(size=n))
)
states = st.recursive(
    st.one_of(
        st.integers(), st.text(max_size=5), st.none(), encoded_arrays.map(lambda e: {"array": e})
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(states, st.integers(1, 400))
@pytest.mark.slow
def test_spill_then_fill_is_the_identity(state, chars):
    arrays: dict[str, dict] = {}
    small = spill(state, arrays, chars=chars)
    assert array_refs(small) == set(arrays)
    assert fill(small, json.loads(json.dumps(arrays))) == state


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
def test_a_store_whose_arrays_zlib_wrote_verifies(database_url, board):
    """Installs without pyarrow wrote zlib, the server Zstandard: the audit
    compares a re-run's state with the stored one by the values they hold
    (:func:`ladderboard.encoding.canonical_state`), so a store of either
    codec verifies wherever it is checked."""
    store = Competitions.open(database_url)
    create(store, board)
    data = files(solution(), 8)
    for i, blob in enumerate(data):
        store.submit("c", "ab"[i % 2], blob)
    with Session(store.engine) as session:
        rows = session.scalars(select(MechanismArrayRow)).all()
        assert rows
        for row in rows:
            array = decode_array(json.loads(row.data))
            row.data = json.dumps(
                {
                    "dtype": array.dtype.name,
                    "shape": list(array.shape),
                    "zlib": base64.b64encode(zlib.compress(array.tobytes())).decode("ascii"),
                }
            )
        session.commit()
    store.engine.dispose()
    fresh = Competitions.open(database_url)  # nothing kept of the old encodings
    assert verify(fresh, "c").submissions == len(data)
    fresh.engine.dispose()
