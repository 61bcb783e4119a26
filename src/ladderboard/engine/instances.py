"""A competition's mechanism instances: built fresh or from a stored state,
each keyed by its own stream of the competition's key, and stored without
the secrets kept elsewhere (the key, the labels). The live engine and the
audit build them alike, which is what lets the audit run a board again bit for
bit.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ladderboard.engine.kept_mechanisms import CachedMechanism
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import MECHANISMS, Mechanism
from ladderboard.random import KeyedStream
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.rank_board import RankBoard

__all__ = ["dump", "factory", "submit_per_rank"]

Fresh = Callable[[str], Mechanism]
Load = Callable[[dict[str, Any], str], Mechanism]


def factory(key_hex: str, config: CompetitionConfig, solution: Solution) -> tuple[Fresh, Load]:
    """``fresh(label)`` and ``load(state, label)`` for this competition's
    mechanisms; each label (a team's scope, a rank instance) keys its own
    stream, derived from the competition's key."""
    klass = MECHANISMS[config.mechanism]
    master = KeyedStream.from_hex(key_hex)

    @functools.cache
    def y_public() -> np.ndarray | None:
        # The public labels are a metric mechanism's secret; a loss-based one
        # never sees them. Gathered when first needed (45 ms at 1e7 rows), not
        # by a submission whose mechanisms are all kept in process.
        return None if klass.input_kind == "losses" else solution.targets[solution.public_rows]

    def fresh(label: str) -> Mechanism:
        params = dict(config.mechanism_params)
        if klass.input_kind == "losses":
            params["n"] = solution.n_public
        else:
            params["metric"] = config.score
            params["y_true"] = y_public()
        if klass.stochastic:
            params["random_state"] = master.derive(label)
        return klass(**params)

    def load(state: dict[str, Any], label: str) -> Mechanism:
        key = master.derive(label) if klass.stochastic else None
        return Mechanism.from_state(state, key=key, y_true=y_public())

    return fresh, load


def dump(mechanism: Mechanism, *, encode_vars=None) -> dict[str, Any]:
    """The state to store: without its secrets (the key, the labels), which
    the competition keeps elsewhere and :func:`factory`'s ``load`` gives back."""
    return mechanism.get_state(encode_vars=encode_vars)


def submit_per_rank(
    state: dict[str, Any] | None,
    fresh: Fresh,
    load: Load,
    team_id: int,
    sequence: int,
    x: np.ndarray,
    *,
    size: int,
    kept: dict[int, CachedMechanism] | None = None,
) -> tuple[float, bool, dict[str, Any]]:
    """One submission to the per-rank board whose JSON state is ``state``
    (left as it was): the release, whether it took a rank, and the new state.

    ``kept``, when given, maps instance numbers to mechanisms exactly as
    ``state`` stores them (a process's copies from its last submission): a
    rank tested is taken from there instead of loaded, and ``kept`` is left
    holding the instances exactly as the new state stores them. An instance
    that moved to a new rank under a fresh key, and the entry it beat (whose
    stored state is the one from before the test), are not kept: the next
    submission loads them.
    """
    state = copy.deepcopy(state) if state else {"entries": [], "created": 0}
    before = dict(kept) if kept is not None else {}
    used: dict[int, CachedMechanism] = {}  # by id() of the mechanism
    dumped: dict[int, tuple[dict[str, Any], CachedMechanism]] = {}  # by id() of the state

    def label(instance: int) -> str:
        return f"rank-instance:{instance}"

    def use(instance: int, make: Callable[[], Mechanism]) -> Mechanism:
        entry = before.pop(instance, None) or CachedMechanism(instance, make())
        used[id(entry.mechanism)] = entry
        return entry.mechanism

    def dump_kept(mechanism: Mechanism) -> dict[str, Any]:
        entry = used[id(mechanism)]
        dumped_state = dump(mechanism, encode_vars=entry.encoded if kept is not None else None)
        dumped[id(dumped_state)] = (dumped_state, entry)
        return dumped_state

    board = RankBoard(
        size=size,
        entries=state["entries"],
        created=state["created"],
        load=lambda entry: use(
            entry["instance"], lambda: load(entry["state"], label(entry["instance"]))
        ),
        fresh=lambda instance: use(instance, lambda: fresh(label(instance))),
        dump=dump_kept,
    )
    try:
        outcome = board.submit(team_id, sequence, x)
    except BaseException:
        if kept is not None:
            kept.clear()  # some instances may have advanced: none is the stored one now
        raise
    if kept is not None:
        kept.clear()
        for entry in board.entries:
            instance = entry["instance"]
            if instance in before:  # not tested: its stored state is unchanged
                kept[instance] = before[instance]
                continue
            # Kept only when the stored state is this mechanism's dump (each
            # dump is held in ``dumped``, so its id is its own), under its own key.
            found = dumped.get(id(entry["state"]))
            if found is not None and found[1].key == instance:
                kept[instance] = found[1]
    return outcome.score, outcome.improved, {"entries": board.entries, "created": board.created}
