"""The registry of experiments: what each reproduces and how it is run.

An :class:`Experiment` is split into *tasks*, each a module-level function and
its keyword arguments, so that a task can be pickled and run in another
process (joblib's loky) or on a Dask worker. Every task carries its own seed,
derived from the run's seed and the task's identity (:func:`task_seed`), never
from the order in which tasks run: results do not depend on the number of jobs.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EXPERIMENTS",
    "Experiment",
    "RunInfo",
    "Task",
    "get_experiment",
    "load_builtin",
    "register",
    "task_seed",
]


def task_seed(seed: int, *identity: object) -> int:
    """A 63-bit seed for the task named by ``identity`` in the run seeded ``seed``.

    SHA-256 of the run seed and the identity, so two tasks never share a seed
    by accident and a task's seed does not depend on which worker runs it.

    >>> task_seed(0, "e1", 3) == task_seed(0, "e1", 3) != task_seed(0, "e1", 4)
    True
    """
    text = "/".join(["ladderboard/experiment", str(int(seed)), *map(str, identity)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of work: ``func(**kwargs)`` returns a tidy DataFrame."""

    func: Callable[..., Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self) -> Any:
        return self.func(**self.kwargs)


@dataclass(frozen=True, slots=True)
class RunInfo:
    """How a run was made, for its report."""

    reps: int
    quick: bool
    seed: int
    jobs: int
    backend: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Experiment:
    """A reproduction of one figure or table of the papers.

    Attributes
    ----------
    id : str
        The SPEC's identifier in lower case (``"e1"``).
    aliases : tuple of str
        Descriptive names that also select it on the command line.
    description : str
        One line: what it shows and where in the papers.
    reps, quick_reps : int
        Repetitions of a full and of a ``--quick`` run (the papers' counts).
    tasks : callable
        ``tasks(reps=..., quick=..., seed=...)`` → list of :class:`Task`.
    plot : callable
        ``plot(frame, path_without_suffix)`` writes ``.png`` and ``.svg``.
    report : callable
        ``report(frame, info)`` → the Markdown text of the report.

    Examples
    --------
    >>> e1 = get_experiment("ladder-boosting")   # Blum & Hardt 2015, Fig. 3
    >>> e1.names, e1.reps, len(e1.tasks(reps=5, quick=True, seed=0))
    (('e1', 'ladder-boosting', 'boosting'), 5, 5)
    """

    id: str
    aliases: tuple[str, ...]
    description: str
    reps: int
    quick_reps: int
    tasks: Callable[..., list[Task]]
    plot: Callable[[Any, Path], list[Path]]
    report: Callable[[Any, RunInfo], str]

    @property
    def names(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)


EXPERIMENTS: dict[str, Experiment] = {}
"""Every registered experiment by id, in SPEC order (filled by :func:`load_builtin`,
which ``ladderboard.experiments.EXPERIMENTS`` and :func:`get_experiment` call)."""

_NOT_EXPERIMENTS = frozenset({"cli", "registry", "runner"})


def _order(experiment: Experiment) -> tuple[int, int, str]:
    """SPEC order: ``e1 < e3 < ... < e10``, then named experiments by name."""
    digits = experiment.id[1:]
    if experiment.id.startswith("e") and digits.isdigit():
        return (0, int(digits), "")
    return (1, 0, experiment.id)


def load_builtin() -> dict[str, Experiment]:
    """Import and register the package's own experiments (once); return the registry.

    Every public module of :mod:`ladderboard.experiments` other than the
    command line, the registry and the runner is an experiment and names it
    ``EXPERIMENT``; they are registered in SPEC order.
    """
    import pkgutil

    import ladderboard.experiments as package

    found = []
    for module in pkgutil.iter_modules(package.__path__):
        if module.name.startswith("_") or module.name in _NOT_EXPERIMENTS:
            continue
        imported = importlib.import_module(f"{package.__name__}.{module.name}")
        experiment = getattr(imported, "EXPERIMENT", None)
        if not isinstance(experiment, Experiment):
            raise TypeError(f"{imported.__name__} does not define EXPERIMENT = Experiment(...)")
        found.append(experiment)
    for experiment in sorted(found, key=_order):
        if experiment.id not in EXPERIMENTS:
            register(experiment)
    return EXPERIMENTS


def register(experiment: Experiment) -> Experiment:
    """Add ``experiment`` to :data:`EXPERIMENTS`; ids and aliases must be unique."""
    taken = {name for e in EXPERIMENTS.values() for name in e.names}
    clash = taken.intersection(experiment.names)
    if clash:
        raise ValueError(f"experiment name(s) already registered: {sorted(clash)}")
    EXPERIMENTS[experiment.id] = experiment
    return experiment


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name`` (its id or an alias, case-insensitive).

    >>> get_experiment("E1").id, get_experiment("ladder-boosting").id
    ('e1', 'e1')
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    wanted = name.strip().lower()
    for experiment in load_builtin().values():
        if wanted in experiment.names:
            return experiment
    known = ", ".join(n for e in EXPERIMENTS.values() for n in e.names)
    raise ValueError(f"unknown experiment {name!r}; known: {known}")
