"""BLAS on one thread, for work whose parallelism is elsewhere.

OpenBLAS runs a dot product of more than 10000 entries on every core, then
keeps its worker threads spinning for a while in case more work comes. On a
competition server that spin takes cores away from parsing, hashing and
compressing the next file, while one submission's products gain little from
threads. Callers wrap such work in :func:`single_blas_thread`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["on_one_blas_thread", "single_blas_thread"]

F = TypeVar("F", bound=Callable[..., Any])

_CONTROLLER: Any = None
_MODULES_SEEN = -1


def single_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """A context in which BLAS uses one thread.

    The loaded libraries are inspected on first use, and again whenever a
    module has been imported since (inspecting them is the expensive part,
    and imports stop once a process is warm): numpy and scipy each bring an OpenBLAS of their own,
    and scipy's is loaded only when a scipy module that needs it is first
    imported, which may be long after the first submission. The limit is
    process-wide while the context lasts.

    >>> import numpy as np
    >>> with single_blas_thread():
    ...     float(np.dot(np.ones(20000), np.ones(20000)))
    20000.0
    """
    global _CONTROLLER, _MODULES_SEEN
    if _CONTROLLER is None or len(sys.modules) != _MODULES_SEEN:
        from threadpoolctl import ThreadpoolController

        # Counted before inspecting: a module imported meanwhile is seen next time.
        seen = len(sys.modules)
        _CONTROLLER, _MODULES_SEEN = ThreadpoolController(), seen
    return _CONTROLLER.limit(limits=1, user_api="blas")


def on_one_blas_thread(function: F) -> F:
    """Decorate ``function`` to run in :func:`single_blas_thread`."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with single_blas_thread():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
