"""Lazy exports for packages whose names pull in heavy modules (numpy,
pandas, scikit-learn), so that ``ladderboard --help`` stays fast."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from the
    submodule ``where[name]`` on first use.

    >>> getattr_ = lazy_exports("ladderboard", {"KeyedStream": "random"})
    >>> getattr_("KeyedStream").__name__
    'KeyedStream'
    >>> getattr_("nothing")
    Traceback (most recent call last):
    AttributeError: module 'ladderboard' has no attribute 'nothing'
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
