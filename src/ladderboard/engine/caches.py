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
    another commitment under the slug (the competition was created again,
    or its solution corrected: :mod:`~ladderboard.engine.corrections`),
    when the store has no such competition, and all at once past 65,536
    entries. The ids, configuration and solution of the pair, which never
    change; never the close, the team's being disabled or its counts, which
    are read again under the lock (as are the opening time and the freeze,
    from the stored configuration: an organiser may move them).
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
    The public board frozen at a competition's freeze is kept here too
    (board ``"frozen"``), once the first submission after the freeze has
    stored it; until then no submission after the freeze is committed, and
    the frozen board is the public board.
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

Every cache is dropped at once when the store's identity changes (a store
put back from a backup: :meth:`Caches.drop_all`,
:meth:`~ladderboard.engine.context.EngineContext.check_identity`).

A process's cache is never told of another process's writes: each entry is
checked against a value the request reads from the store anyway (the board
version, the mechanism state's count, the commitment under the lock), or
holds only what never changes. The web edge keeps its serialised boards
beside these (``server/board_json.py``), keyed by the identity of the board
tuple :attr:`Caches.boards` hands out, so they follow these boards.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

from ladderboard.engine.kept_mechanisms import MechanismCache
from ladderboard.engine.workers import ScratchPool
from ladderboard.files.solution import Solution
from ladderboard.rules.config import Scoring
from ladderboard.rules.scoring import check_targets
from ladderboard.store import queries
from ladderboard.store.arrays import StoredArrays
from ladderboard.store.blobs import unpack

T = TypeVar("T")

__all__ = ["BoardCache", "Caches", "ClearedWhenFull", "SingleFlight", "SolutionCache"]


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
    back from a backup, where they went back, gets a new identity that makes
    every process drop its caches: :mod:`ladderboard.store.identity`.) A
    board missing here is
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
        self._sizes = (mechanisms, targets, boards, mechanism_bytes)
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

    def drop_all(self) -> None:
        """Forget everything kept: for a store that changed under this
        process otherwise than by its writes (put back from a backup), where
        the counters the caches trust may have gone back. A thread that holds
        what it took keeps it; nothing kept before is handed out after."""
        mechanisms, targets, boards, mechanism_bytes = self._sizes
        self.__init__(  # type: ignore[misc]  # the same caches, empty
            mechanisms, targets, boards, mechanism_bytes, enabled=self.enabled
        )
