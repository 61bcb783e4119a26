"""A docstring written once, where the work is done.

:class:`~ladderboard.engine.Competitions` hands each method's work to the
module of its resource; :func:`documented_by` gives the facade's method the
docstring of the method it hands the work to, so that the text is kept in one
place and ``help()``, IDEs and the API pages show it on both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["documented_by"]

Method = TypeVar("Method", bound=Callable[..., object])


def documented_by(source: Callable[..., object]) -> Callable[[Method], Method]:
    """A decorator that sets a method's ``__doc__`` to ``source``'s, and
    nothing else: the method keeps its own name and signature (unlike
    :func:`functools.wraps`, which would also copy ``source``'s name and make
    ``inspect.signature`` report ``source``'s parameters).

    Raises :class:`TypeError` when ``source`` has no docstring to give.

    >>> def work(x: int) -> int:
    ...     '''Twice ``x``.'''
    ...     return 2 * x
    >>> @documented_by(work)
    ... def facade(x: int) -> int:
    ...     return work(x)
    >>> facade.__doc__, facade.__name__
    ('Twice ``x``.', 'facade')
    """
    if not source.__doc__:
        raise TypeError(f"documented_by needs a documented source, got {source!r}")
    doc = source.__doc__

    def document(method: Method) -> Method:
        method.__doc__ = doc
        return method

    return document
