"""A board's mechanism taking one submission's scores: this process's copy
when it is current, else one rebuilt from the stored state
(:mod:`~ladderboard.engine.instances`), and kept after the commit
(:mod:`~ladderboard.engine.caches`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from ladderboard.engine import instances
from ladderboard.engine.context import EngineContext
from ladderboard.engine.kept_mechanisms import CachedMechanism, CachedRanks
from ladderboard.engine.targets import Target

__all__ = ["Step", "advance", "committed"]


@dataclass(frozen=True, slots=True)
class Step:
    """A board's mechanism after one submission: its release and new state."""

    sequence: int  # the submission's place in its board
    score: float
    improved: bool
    state: Any  # JSON, its large arrays spilled
    spilled: list  # the arrays this transaction stored
    cached: CachedMechanism | CachedRanks  # the advanced mechanism(s), kept after the commit


def advance(
    context: EngineContext, connection: Connection, target: Target, locked: Any, x: Any
) -> Step:
    """The board's mechanism takes the public scores ``x``: this process's
    copy when it has seen exactly the stored submissions, else one rebuilt
    from the stored state (on a per-rank board, likewise each rank's
    instance tested); the new state is returned with its large arrays
    spilled to the store."""
    config, arrays = target.config, context.caches.arrays
    sequence = locked.n_submissions + 1
    key = (target.competition_id, locked.commitment, target.scope)
    cached = context.caches.mechanisms.take(key, locked.n_submissions)
    if config.board == "per-rank":
        ranks = cached if isinstance(cached, CachedRanks) else CachedRanks(key)
        fresh, load = instances.factory(locked.secret_key, config, target.solution)
        competition_id = target.competition_id
        score, improved, state = instances.submit_per_rank(
            locked.state,
            fresh,
            # Only the ranks tested and not kept here are read from the store.
            lambda stored, label: load(arrays.fill(connection, competition_id, stored), label),
            target.team_id,
            sequence,
            x,
            size=config.ranks,
            kept=ranks.instances,
        )
        cached = ranks
    else:
        if not isinstance(cached, CachedMechanism):
            fresh, load = instances.factory(locked.secret_key, config, target.solution)
            if locked.state is None:
                cached = CachedMechanism(key, fresh(target.scope))
            else:
                state = arrays.fill(connection, target.competition_id, locked.state)
                cached = CachedMechanism.loaded(key, load(state, target.scope), state)
        release = cached.mechanism.submit(x)
        score, improved = release.score, release.improved
        state = instances.dump(cached.mechanism, encode_vars=cached.encoded)
    state, spilled = arrays.spill(connection, target.competition_id, state)
    return Step(sequence, score, improved, state, spilled, cached)


def committed(context: EngineContext, step: Step) -> None:
    """After the commit: the arrays are known stored, and the next
    submission to the board continues from this process's mechanism."""
    context.caches.arrays.committed(step.spilled)
    context.caches.mechanisms.put(step.cached, step.sequence)
