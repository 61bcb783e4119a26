"""The registry of experiments: what each reproduces and how it is run.

An :class:`Experiment` is split into tasks (:class:`ladderboard.tasks.Task`),
each with its own seed (:func:`ladderboard.tasks.task_seed`), run by
:func:`ladderboard.tasks.run_tasks`: results do not depend on the number of jobs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ladderboard.tasks.runner import Task

__all__ = [
    "EXPERIMENTS",
    "Experiment",
    "RunInfo",
    "get_experiment",
    "load_builtin",
    "register",
]


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
        The identifier in lower case (``"e1"``), as :mod:`ladderboard.experiments`
        lists them.
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


class _Registry(Mapping[str, Experiment]):
    """Experiments by id, in the papers' order. The package's own are imported
    and registered on first read (:func:`load_builtin`), so that importing the
    package does not import every experiment's dependencies."""

    def __init__(self) -> None:
        self._by_id: dict[str, Experiment] = {}
        self._loaded = False

    def _entries(self) -> dict[str, Experiment]:
        if not self._loaded:
            load_builtin()
        return self._by_id

    def __getitem__(self, key: str) -> Experiment:
        return self._entries()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    def __repr__(self) -> str:
        return f"EXPERIMENTS({list(self)})"


EXPERIMENTS = _Registry()
"""Every registered experiment by id: e1, e3, ..., e10 (the experiments of the
papers, numbered as the package numbers them), then named ones by name.

>>> list(EXPERIMENTS)[:3]
['e1', 'e3', 'e4']
"""

_NOT_EXPERIMENTS = frozenset({"cli", "registry", "runner"})


def _order(experiment: Experiment) -> tuple[int, int, str]:
    """``e1 < e3 < ... < e10``, then named experiments by name."""
    digits = experiment.id[1:]
    if experiment.id.startswith("e") and digits.isdigit():
        return (0, int(digits), "")
    return (1, 0, experiment.id)


def load_builtin() -> Mapping[str, Experiment]:
    """Import and register the package's own experiments (once); return the registry.

    Every public module of :mod:`ladderboard.experiments` other than the
    command line, the registry and the runner is an experiment and names it
    ``EXPERIMENT``; they are registered in the order ``e1 < e3 < ... < e10``,
    then by name.
    """
    if EXPERIMENTS._loaded:
        return EXPERIMENTS
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
        if experiment.id not in EXPERIMENTS._by_id:
            register(experiment)
    EXPERIMENTS._loaded = True
    return EXPERIMENTS


def register(experiment: Experiment) -> Experiment:
    """Add ``experiment`` to :data:`EXPERIMENTS`; ids and aliases must be unique."""
    taken = {name for e in EXPERIMENTS._by_id.values() for name in e.names}
    clash = taken.intersection(experiment.names)
    if clash:
        raise ValueError(f"experiment name(s) already registered: {sorted(clash)}")
    EXPERIMENTS._by_id[experiment.id] = experiment
    return experiment


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name`` (its id or an alias, case-insensitive).

    >>> get_experiment("E1").id, get_experiment("ladder-boosting").id
    ('e1', 'e1')
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    wanted = name.strip().lower()
    for experiment in EXPERIMENTS.values():
        if wanted in experiment.names:
            return experiment
    known = ", ".join(n for e in EXPERIMENTS.values() for n in e.names)
    raise ValueError(f"unknown experiment {name!r}; known: {known}")
