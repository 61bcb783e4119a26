"""What the engine keeps in process between requests, and the contract each
cache keeps.

Nothing here is a source of truth. Every cache is keyed by what the store
says (a hash, the competition's commitment, a version or a count the store
increments in the transaction that changes it) and falls back to the store
on a miss, so several processes or hosts can share one database. An engine
built with every cache off (``Competitions(..., caching=False)``, which
builds :class:`Caches` with ``enabled=False``) gives the same boards and
releases, bit for bit, only slower (``tests/engine/test_caches_off.py``
plays a competition both ways, on both stores).

Each cache of :class:`Caches`, what it is keyed by, what drops it, and what
a reader may assume of what it hands out:

``solutions`` (:class:`SolutionCache`)
    Keyed by the competition's id and its solution file's SHA-256. Never
    dropped: a file never changes under its hash. The parsed solution of
    the stored file, shared by every caller, so never written to.
``targets`` (:class:`ClearedWhenFull`)
    Keyed by (slug, team name). Dropped when the team is disabled or
    enabled, when the deadline it holds has passed by this host's clock
    (read again, as the organiser may have moved it), when the lock finds
    another commitment under the slug (the competition was created again),
    when the store has no such competition, and all at once past 65,536
    entries. The ids, configuration and solution of the pair, which never
    change; never the close, the team's being disabled or its counts, which
    are read again under the lock.
``mechanisms`` (:class:`MechanismCache`)
    Keyed by (competition id, commitment, scope), with the count of
    submissions the mechanism has taken. Handed out only when the stored
    state has taken as many (another process may have submitted since),
    and taken out by the transaction that advances it, put back only after
    its commit; the least recently used dropped past 64 entries or about
    1 GiB. The mechanism has taken exactly the stored submissions of its
    board, in order.
``arrays`` (:class:`~ladderboard.store.arrays.StoredArrays`)
    Keyed by (competition id, SHA-256 of an array's encoding): content
    addressed, so never stale; an array is remembered as stored only after
    the commit that stored it. Such an array is in the committed store, and
    an encoding kept is the stored one.
``boards`` (:class:`BoardCache`)
    Keyed by (competition id, commitment, board), at the competition's
    ``board_version``, which every change to a board increments in the
    transaction that makes it. Handed out only at the version the caller
    just read; 64 boards kept. The board as the store held it at that
    version; the tuple is the one kept, the same object while the board
    stays the same (so a caller may key what it derives by its identity).
``public_boards`` (:class:`BoardCache` with ``later``)
    The public boards of per-team competitions, keyed as ``boards``. One
    kept at a later version than the caller read is handed out (it holds
    every change up to that version); one kept at an older version is
    patched with the standings changed since, unless a reset
    (``board_reset_version``: a selection, the close, the publication) came
    between, when the board is built from every standing.
``decimals`` (:class:`ClearedWhenFull`)
    Keyed by (commitment, mechanism, its parameters, precision): the
    decimals a board shows are a function of the key, never stale; all
    dropped past 10,000 entries.
``scratch`` (:class:`ScratchPool`)
    Not a cache of values: memory lent to one submission at a time and
    given back, whose contents the next submission overwrites; nothing
    reads what it held.

A process's cache is never told of another process's writes: each entry is
checked against a value the request reads from the store anyway (the board
version, the mechanism state's count, the commitment under the lock), or
holds only what never changes. The web edge keeps its serialised boards
beside these (``server/board_json.py``), keyed by the identity of the board
tuple :attr:`Caches.boards` hands out, so they follow these boards.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import numpy as np

from ladderboard.encoding import codec, decode_array, encode_array, payload
from ladderboard.files.solution import Solution
from ladderboard.files.submission import submission_sha256
from ladderboard.mechanisms import Mechanism
from ladderboard.rules.config import Scoring
from ladderboard.rules.scoring import ScoringScratch, check_targets
from ladderboard.store import queries
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.blobs import pack, unpack

__all__ = [
    "BoardCache",
    "CachedMechanism",
    "CachedRanks",
    "Caches",
    "ClearedWhenFull",
    "MechanismCache",
    "ScratchPool",
    "SingleFlight",
    "SolutionCache",
    "background",
    "hash_and_pack",
]

T = TypeVar("T")
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def background(function: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``function(*args)`` on the engine's worker threads (hashing and
    compression release the GIL, so they overlap with parsing)."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                workers = min(4, os.cpu_count() or 1)
                _POOL = ThreadPoolExecutor(workers, thread_name_prefix="ladderboard-submit")
    return _POOL.submit(function, *args)


def hash_and_pack(data: bytes) -> tuple[str, bytes]:
    """A submission file's SHA-256 and its stored (compressed) form."""
    return submission_sha256(data), pack(data)


class ScratchPool:
    """Scoring scratch (:class:`~ladderboard.rules.scoring.ScoringScratch`)
    lent to one submission at a time and kept between submissions, for
    holdouts of ``smallest`` rows or more.

    A submission to a holdout of ten million rows would otherwise ask the
    system for 160 MB of fresh pages and give them back when it ends; the
    next one faults them in again (several times the scoring's own time on
    a virtual machine that reclaims freed memory). Concurrent submissions
    each get their own scratch. While nobody uses them, the last one given
    back is kept, and older ones while all together take at most
    ``idle_bytes`` (the least recently returned given up first): a holdout
    larger than that keeps one scratch, a few times smaller than what one of
    its submissions needs anyway.
    """

    def __init__(self, idle_bytes: int = 2**28, smallest: int = 2**17) -> None:
        self.idle_bytes = idle_bytes
        self.smallest = smallest
        self._lock = threading.Lock()
        self._idle: list[ScoringScratch] = []  # least recently returned first

    def lend(self, solution: Solution) -> ScoringScratch | None:
        """Scratch of ``solution``'s shape, not lent to anyone else until
        :meth:`give_back`; None for a holdout too small to need one."""
        if solution.n < self.smallest:
            return None
        shape = (solution.n, solution.public_rows.size, solution.private_rows.size)
        with self._lock:
            for k in range(len(self._idle) - 1, -1, -1):
                if self._idle[k].fits(*shape):
                    return self._idle.pop(k)
        return ScoringScratch(*shape)

    def give_back(self, scratch: ScoringScratch | None) -> None:
        """Keep ``scratch`` for the next submission (its contents may be overwritten from now)."""
        if scratch is None:
            return
        with self._lock:
            self._idle.append(scratch)
            total = sum(kept.nbytes for kept in self._idle)
            while len(self._idle) > 1 and total > self.idle_bytes:
                total -= self._idle.pop(0).nbytes

    @contextmanager
    def lent(self, solution: Solution) -> Iterator[ScoringScratch | None]:
        """:meth:`lend`, given back when the block ends, however it ends."""
        scratch = self.lend(solution)
        try:
            yield scratch
        finally:
            self.give_back(scratch)

    @property
    def idle(self) -> int:
        """How many scratches are kept for the next submissions."""
        with self._lock:
            return len(self._idle)


class ClearedWhenFull(dict):
    """A dict that starts afresh once it holds ``size`` items: this process's
    copy of what never changes (a competition's and a team's ids, its
    solution and configuration), read from the store on a miss."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.size <= 0:
            return  # keeps nothing: every read goes to the store
        if len(self) >= self.size:
            self.clear()
        super().__setitem__(key, value)


_FAILED = object()


class _Making:
    """One key's making under way: set ``done`` when it ends, with ``made``
    what it made (left :data:`_FAILED` when it raised)."""

    __slots__ = ("done", "made")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.made: Any = _FAILED


class SingleFlight:
    """What is made for a key by one thread at a time: the other threads that
    ask for the same key meanwhile wait for that making to end and are handed
    what it made, rather than each making a copy of their own.

    So a cold cache meets a crowd with one read: a worker's first submissions
    arriving together each need the solution, and after a restart or a
    submission, a board's readers each need its new board. A key names
    exactly what is made (a board at its version, not a board at any
    version), since a waiter takes what was made for the key as its own.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._making: dict[Hashable, _Making] = {}

    def run(self, key: Hashable, look: Callable[[], T | None], make: Callable[[], T]) -> T:
        """What ``look`` finds (where ``make`` keeps what it makes, if it
        does), else what ``make`` returns for ``key``: made by this thread
        unless another is making it, which this one then waits for and takes
        the result of. If that making raised, each thread that waited makes
        its own, at once (one failure costs a waiter two makings' time, not
        one for every thread ahead of it). ``look`` runs first on its own (a
        hit takes no lock of this object's), then again under this object's
        lock, so it must be quick, safe from any thread, and take no lock held
        while calling :meth:`run`; ``make`` must not ask for the same key (it
        would wait for itself)."""
        found = look()
        if found is not None:
            return found
        with self._lock:
            found = look()  # kept since the look above, by a making that has ended
            if found is not None:
                return found
            other = self._making.get(key)
            if other is None:
                mine = self._making[key] = _Making()
        if other is not None:
            other.done.wait()
            return make() if other.made is _FAILED else cast(T, other.made)
        try:
            mine.made = made = make()
            return made
        finally:
            with self._lock:
                del self._making[key]
            mine.done.set()


class SolutionCache:
    """Parsed solutions by competition, so a submission does not re-read them.

    A solution missing here is read and parsed by one thread while the others
    that need it wait for it: the first submissions to a worker (a new worker,
    a new competition, the morning of a last day) arrive together, and each
    reading its own copy would take the CPU and memory of as many parses (at
    ten million rows, each holds the whole file and its arrays at once).
    """

    def __init__(self, *, keep: bool = True) -> None:
        self.keep = keep  # False: every lookup reads and parses the stored file
        self._lock = threading.Lock()
        self._items: dict[tuple[int, str], Solution] = {}
        self._flight = SingleFlight()
        self._suits: dict[Hashable, bool] = {}

    def lookup(self, competition_id: int, solution_sha256: str, connection: Any) -> Solution:
        """The solution of competition ``competition_id``, read through
        ``connection`` only when it is not cached."""
        key = (competition_id, solution_sha256)

        def parse() -> Solution:
            parsed = Solution.from_csv(unpack(queries.solution_file(connection, competition_id)))
            if self.keep:
                with self._lock:
                    self._items[key] = parsed
            return parsed

        return self._flight.run(key, lambda: self._items.get(key), parse)

    def suits(self, key: Hashable, solution: Solution, scoring: Scoring) -> bool:
        """Whether ``solution``'s targets pass :func:`check_targets` for
        ``scoring``, checked once per ``key`` (the competition's creation).
        Competitions created by this version always do; older ones are scored
        with every check, and one whose labels do not suit its loss fails
        each submission as it always did."""
        with self._lock:
            found = self._suits.get(key)
        if found is None:
            try:
                check_targets(scoring, solution.targets)
                found = True
            except (TypeError, ValueError):
                found = False
            if self.keep:
                with self._lock:
                    self._suits[key] = found
        return found


class CachedMechanism:
    """A scope's mechanism as advanced by this process's last commit, with
    the encodings of its learned arrays.

    :meth:`encoded` is the ``encode_vars`` of
    :meth:`~ladderboard.mechanisms.Mechanism.get_state`: it reuses an array's
    encoding while the array is bit-for-bit what it was (a ladder's best
    losses change only when a submission is accepted), comparing against its
    own copy, since a mechanism may overwrite its buffers in place.
    """

    __slots__ = ("_arrays", "key", "mechanism")

    def __init__(self, key: Hashable, mechanism: Mechanism) -> None:
        self.key = key
        self.mechanism = mechanism
        self._arrays: dict[str, tuple[np.ndarray, dict]] = {}

    @classmethod
    def loaded(cls, key: Hashable, mechanism: Mechanism, state: dict[str, Any]) -> CachedMechanism:
        """``mechanism`` as just rebuilt from the stored ``state`` (its arrays
        filled in), keeping the state's encodings of its learned arrays: the
        next dump encodes again only an array its submission changed (another
        process's submission left this process's copy stale, and encoding a
        best's losses costs more than loading them). An encoding by another
        codec than this process writes (zlib, written without pyarrow) is not
        kept: the audit re-runs the mechanism here and compares states as
        written."""
        entry = cls(key, mechanism)
        written = codec()
        for name, value in state.get("vars", {}).items():
            encoded = value.get("array") if isinstance(value, dict) and len(value) == 1 else None
            if isinstance(encoded, dict) and written in encoded:
                # What the encoding decodes to, bit for bit: reused only for those bits.
                entry._arrays[name] = (decode_array(encoded), encoded)
        return entry

    def encoded(self, name: str, array: np.ndarray) -> dict:
        kept = self._arrays.get(name)
        if kept is not None and _same_bits(kept[0], array):
            return kept[1]
        encoding = encode_array(array)
        self._arrays[name] = (np.array(array, copy=True), encoding)
        return encoding

    @property
    def nbytes(self) -> int:
        """About the memory this entry holds: the mechanism's own arrays (its
        learned ones, a metric mechanism's copy of the labels), and the
        copies and encodings of the learned ones kept here."""
        held = [value for value in vars(self.mechanism).values() if isinstance(value, np.ndarray)]
        kept = [array for array, _ in self._arrays.values()]
        encodings = [len(payload(encoding) or "") for _, encoding in self._arrays.values()]
        return sum(array.nbytes for array in held + kept) + sum(encodings)


class CachedRanks:
    """A per-rank board's instances as advanced by this process's last
    commit, by instance number (see
    :func:`~ladderboard.engine.instances.submit_per_rank`)."""

    __slots__ = ("instances", "key")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.instances: dict[int, CachedMechanism] = {}

    @property
    def nbytes(self) -> int:
        return sum(entry.nbytes for entry in self.instances.values())


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` hold the same bytes (so ``-0.0`` differs from ``0.0``).

    >>> _same_bits(np.array([0.0, 1.0]), np.array([-0.0, 1.0]))
    False
    >>> _same_bits(np.array([np.nan]), np.array([np.nan]))
    True
    """
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))


Cached = CachedMechanism | CachedRanks


class MechanismCache:
    """The mechanisms of the scopes this process submitted to last: at most
    ``size`` of them, and those last used up to ``max_bytes`` (about: see
    :attr:`CachedMechanism.nbytes`) but the last one put, which its
    submission held in memory anyway.

    :meth:`take` hands an entry over only when the stored state has seen
    exactly as many submissions as the entry (another process may have
    submitted since), and removes it: if the transaction then fails, the
    advanced mechanism is gone with it, and the next submission loads the
    stored state. :meth:`put` returns it after the commit.
    """

    def __init__(self, size: int = 64, max_bytes: int = 2**30) -> None:
        self.size, self.max_bytes = size, max_bytes
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, tuple[int, Cached, int]] = OrderedDict()
        self._bytes = 0

    def take(self, key: Hashable, n_submissions: int) -> Cached | None:
        with self._lock:
            found = self._items.pop(key, None)
            if found is not None:
                self._bytes -= found[2]
        if found is None or found[0] != n_submissions:
            return None
        return found[1]

    def put(self, entry: Cached, n_submissions: int) -> None:
        if self.size <= 0:
            return
        nbytes = entry.nbytes
        with self._lock:
            replaced = self._items.pop(entry.key, None)
            if replaced is not None:
                self._bytes -= replaced[2]
            self._items[entry.key] = (n_submissions, entry, nbytes)
            self._bytes += nbytes
            while len(self._items) > self.size or (
                len(self._items) > 1 and self._bytes > self.max_bytes
            ):
                _, (_, _, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    @property
    def nbytes(self) -> int:
        """About the memory the kept mechanisms hold."""
        with self._lock:
            return self._bytes

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


class BoardCache:
    """The boards this process built last, at most ``size``, each under the
    competition's ``board_version`` it was read at.

    A board is asked for with the version just read from the store
    (``CompetitionRow.board_version``, which every change to the board
    increments in the transaction that makes it): the board kept is handed
    out only if it was read at that very version (or, with ``later``, at that
    version or a later one), and so is the board as the store holds it,
    whichever process or host changed it last. A board read at version ``v``
    is read after ``v`` was: it holds every change up to ``v``, and perhaps a
    later one, which the next version then replaces. (A board kept at a later
    version is taken for a newer one: versions only grow, and a store put
    back from a backup needs its workers restarted.) A board missing here is
    built by one thread while the others that ask for it at the same version
    wait for it (:class:`SingleFlight`).
    """

    def __init__(self, size: int = 64, *, later: bool = False) -> None:
        self.size = size
        self.later = later
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
        self._flight = SingleFlight()

    def get(self, key: Hashable, version: int) -> Any:
        """The board kept under ``key`` if it was read at ``version`` (or
        later, with ``later``), else ``None``."""
        found = self.latest(key)
        if found is None or found[0] < version or (found[0] > version and not self.later):
            return None
        return found[1]

    def latest(self, key: Hashable) -> tuple[int, Any] | None:
        """The board kept under ``key`` with its version, whatever it is."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def made(self, key: Hashable, version: int, make: Callable[[], Any]) -> Any:
        """:meth:`get`, or else the board ``make`` returns as read at
        ``version``, which is kept: made by one thread while the others
        asking for ``key`` at ``version`` wait for it and take it."""

        def build() -> Any:
            board = make()
            self.put(key, version, board)
            return board

        return self._flight.run((key, version), lambda: self.get(key, version), build)

    def put(self, key: Hashable, version: int, board: Any) -> None:
        if self.size <= 0:
            return
        with self._lock:
            kept = self._items.get(key)
            if kept is not None and kept[0] > version:
                return  # another thread kept a later board meanwhile
            self._items[key] = (version, board)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class Caches:
    """Everything the engine keeps in process, in one place (the module's
    docstring says what each holds and when it is dropped). With
    ``enabled=False`` none keeps anything: every read goes to the store and
    every mechanism is rebuilt from its stored state, which gives the same
    boards and releases, bit for bit, only slower."""

    def __init__(
        self,
        mechanisms: int = 64,
        targets: int = 65536,
        boards: int = 64,
        mechanism_bytes: int = 2**30,
        *,
        enabled: bool = True,
    ) -> None:
        if not enabled:
            mechanisms = targets = boards = 0
        self.enabled = enabled
        self.solutions = SolutionCache(keep=enabled)
        self.mechanisms = MechanismCache(mechanisms, mechanism_bytes)
        self.arrays = StoredArrays() if enabled else StoredArrays(size=0, encoding_chars=0)
        self.targets = ClearedWhenFull(targets)
        self.boards = BoardCache(boards)
        self.public_boards = BoardCache(boards, later=True)  # KeptBoards, to patch
        self.decimals = ClearedWhenFull(10_000 if enabled else 0)
        # Never lent when disabled: each submission scores into fresh arrays.
        self.scratch = ScratchPool() if enabled else ScratchPool(idle_bytes=0, smallest=2**63)
