"""What an organiser may set on each mechanism, read from the mechanism itself.

:func:`parameters_of` lists a mechanism's keyword-only parameters with their
kind, default and a one-sentence help: the kind from the annotation of
``__init__``, the help from the "Parameters" section of the class docstring
(numpydoc). A form with one field per parameter can be built from it, so a
newly registered mechanism is offered with its parameters the moment it
exists. The parameters the engine supplies (the holdout size, the random key,
the metric and the labels) are left out.

>>> [(p.name, p.kind, p.default) for p in parameters_of("ladder-boot")]
... # doctest: +NORMALIZE_WHITESPACE
[('alpha', 'float', 0.15), ('b', 'int', 100), ('floor', 'float', None),
 ('precision', 'float', None)]
>>> parameters_of("ladder")[0].coerce("abc")
Traceback (most recent call last):
ValueError: eta must be a number, got 'abc'
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from numpy.typing import ArrayLike

from ladderboard.mechanisms.base import MECHANISMS, Mechanism

__all__ = [
    "ENGINE_SUPPLIED",
    "KINDS",
    "REQUIRED",
    "ParameterInfo",
    "coerce_params",
    "complete_params",
    "docstring_parameters",
    "parameters_of",
]

ENGINE_SUPPLIED: Final = frozenset({"n", "random_state", "metric", "y_true"})
"""Parameters the competition engine sets itself, never the organiser."""

KINDS: Final = ("float", "int", "bool", "choice", "str", "vector")
"""What a parameter holds: a number, a whole number, yes or no, one of a few
words, free text, or a vector of numbers."""


class _Required:
    """The default of a parameter that has none."""

    _instance: _Required | None = None

    def __new__(cls) -> _Required:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()
"""The :attr:`ParameterInfo.default` of a parameter that must be given."""

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True)
class ParameterInfo:
    """One parameter of a mechanism, as an organiser sets it.

    Attributes
    ----------
    name : str
        The keyword of the mechanism's ``__init__``.
    kind : str
        One of :data:`KINDS`.
    default : object
        The value used when the parameter is not given, :data:`REQUIRED` if
        it must be. ``None`` means the mechanism settles it itself (from the
        holdout size, or by leaving a feature off); the help says how.
    help : str
        The first sentence of the parameter's entry in the docstring, or
        ``""`` if the docstring has none.
    choices : tuple of str
        The allowed values of a ``"choice"`` parameter, else empty.

    >>> noise = parameters_of("shaky-ladder")[2]
    >>> noise.name, noise.kind, noise.default, noise.choices, noise.required
    ('noise', 'choice', 'laplace', ('laplace', 'gaussian'), False)
    >>> print(noise.help)
    The distribution of the noise: Laplace, as in the analysis, or Gaussian, as
    in the paper's simulations.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        """Whether the parameter has no default and must be given."""
        return self.default is REQUIRED

    def coerce(self, text: str) -> Any:
        """The value a form's text field stands for, of this parameter's kind.

        Empty text stands for the default. A text that is not of the kind
        raises ``ValueError`` with a sentence naming the parameter; whether the
        value is in range is the mechanism's check, when it is built.

        >>> eta, = parameters_of("ladder")
        >>> eta.coerce(" 0.01 "), eta.coerce("1e-3")
        (0.01, 0.001)
        >>> eta.coerce("")
        Traceback (most recent call last):
        ValueError: eta is required: give a number
        >>> [p.coerce("no") for p in parameters_of("shaky-ladder") if p.kind == "bool"]
        [False]
        """
        if not isinstance(text, str):
            raise TypeError(f"{self.name} must be given as text, got {type(text).__name__}")
        value = text.strip()
        if not value:
            if self.required:
                raise ValueError(f"{self.name} is required: give {_WANTED[self.kind]}")
            return self.default
        return _PARSERS[self.kind](self, value)


def _parse_float(info: ParameterInfo, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{info.name} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{info.name} must be a finite number, got {text!r}")
    return value


def _parse_int(info: ParameterInfo, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value.is_integer():
        raise ValueError(f"{info.name} must be a whole number, got {text!r}")
    return int(value)


def _parse_bool(info: ParameterInfo, text: str) -> bool:
    word = text.lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(f"{info.name} must be yes or no, got {text!r}")


def _parse_choice(info: ParameterInfo, text: str) -> str:
    for choice in info.choices:
        if text.lower() == choice.lower():
            return choice
    allowed = ", ".join(repr(c) for c in info.choices)
    raise ValueError(f"{info.name} must be one of {allowed}, got {text!r}")


def _parse_vector(info: ParameterInfo, text: str) -> list[float]:
    try:
        parsed = json.loads(text) if text.startswith("[") else None
    except ValueError:
        parsed = None
    items = parsed if isinstance(parsed, list) else re.split(r"[\s,;]+", text.strip("[] "))
    try:
        values = [float(item) for item in items if item != ""]
    except (TypeError, ValueError):
        values = []
    if not values or not all(math.isfinite(v) for v in values):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"{info.name} must be finite numbers separated by commas, got {shown!r}")
    return values


_PARSERS = {
    "float": _parse_float,
    "int": _parse_int,
    "bool": _parse_bool,
    "choice": _parse_choice,
    "str": lambda info, text: text,
    "vector": _parse_vector,
}
_WANTED = {
    "float": "a number",
    "int": "a whole number",
    "bool": "yes or no",
    "choice": "one of the choices",
    "str": "a text",
    "vector": "numbers separated by commas",
}


def _kind(klass: type, name: str, hint: Any) -> tuple[str, tuple[str, ...]]:
    """The kind and choices of a parameter annotated ``hint``; ``None`` in a
    union only says the parameter may be left to the mechanism."""
    members = typing.get_args(hint) if _is_union(hint) else (hint,)
    members = tuple(m for m in members if m is not type(None))
    if len(members) == 1:
        (only,) = members
        if typing.get_origin(only) is Literal:
            return "choice", tuple(str(c) for c in typing.get_args(only))
        for kind, type_ in (("bool", bool), ("int", int), ("float", float), ("str", str)):
            if only is type_:
                return kind, ()
    if _is_array_like(members):
        return "vector", ()
    raise TypeError(
        f"{klass.__name__}.{name} is annotated {hint!r}, which no form field holds: "
        f"annotate it as one of {KINDS} (a Literal for a choice)"
    )


def _is_array_like(members: tuple[Any, ...]) -> bool:
    """Whether the members of an annotation are numpy's ``ArrayLike``: the
    alias itself (an alias object, as numpy 2.5's ``TypeAliasType`` is,
    stays one member of ``ArrayLike | None``), or all of its members (a
    ``Union``, as older numpy's is, is flattened into the annotation's).
    An alias whose members cannot be read is never taken as all of them."""
    if ArrayLike in members:
        return True
    parts = set(typing.get_args(ArrayLike))
    return bool(parts) and parts <= set(members)


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


_ENTRY = re.compile(r"(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::.*)?\Z")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]+\.)?([^`]+)`")


def docstring_parameters(doc: str | None) -> dict[str, str]:
    """Each parameter of a numpydoc "Parameters" section with the first
    sentence of its description, reST markup removed; ``""`` for an entry
    without one.

    >>> docstring_parameters('''Summary.
    ...
    ... Parameters
    ... ----------
    ... eta : float
    ...     The step, ``η``. Theory suggests more.
    ... k, t : int
    ... ''')
    {'eta': 'The step, η.', 'k': '', 't': ''}
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    starts = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip() == "Parameters" and _is_rule(lines[i + 1])
    ]
    if not starts:
        return {}
    described: dict[str, list[str]] = {}
    current: list[str] = []
    for i in range(starts[0] + 2, len(lines)):
        line = lines[i]
        if not line.strip():
            continue
        if line[0].isspace():
            current.append(line.strip())
            continue
        entry = _ENTRY.match(line)
        if entry is None or (i + 1 < len(lines) and _is_rule(lines[i + 1])):
            break  # the section ends at prose or at the next section's title
        current = []
        for name in re.split(r"\s*,\s*", entry["names"]):
            described[name] = current
    return {name: _first_sentence(" ".join(words)) for name, words in described.items()}


def _is_rule(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) == {"-"}


def _first_sentence(text: str) -> str:
    plain = _ROLE.sub(r"\1", text).replace("``", "")
    return _SENTENCE_END.split(plain, maxsplit=1)[0].strip()


@functools.cache
def _parameters(klass: type[Mechanism]) -> tuple[ParameterInfo, ...]:
    signature = inspect.signature(klass.__init__)
    hints = typing.get_type_hints(klass.__init__)
    helps = docstring_parameters(klass.__doc__)
    infos = []
    for name, parameter in signature.parameters.items():
        if parameter.kind is not parameter.KEYWORD_ONLY or name in ENGINE_SUPPLIED:
            continue
        kind, choices = _kind(klass, name, hints.get(name, Any))
        default = REQUIRED if parameter.default is parameter.empty else parameter.default
        infos.append(ParameterInfo(name, kind, default, helps.get(name, ""), choices))
    return tuple(infos)


def parameters_of(mechanism: str | type[Mechanism]) -> list[ParameterInfo]:
    """The parameters an organiser may set on ``mechanism`` (a registry name
    or a class), in the order of its ``__init__``.

    >>> [(p.name, p.kind, p.choices) for p in parameters_of("shaky-ladder")][:3]
    [('noise_scale', 'float', ()), ('step', 'float', ()),
     ('noise', 'choice', ('laplace', 'gaussian'))]
    >>> eta, = parameters_of("ladder")
    >>> eta.required
    True
    >>> print(eta.help)
    The step: a submission must beat the last release by more than it to be
    released, and releases are rounded to its multiples.
    """
    if isinstance(mechanism, str):
        try:
            klass = MECHANISMS[mechanism]
        except KeyError:
            known = ", ".join(sorted(MECHANISMS))
            raise ValueError(f"unknown mechanism {mechanism!r}; known: {known}") from None
    elif isinstance(mechanism, type) and issubclass(mechanism, Mechanism):
        klass = mechanism
    else:
        raise TypeError(f"mechanism must be a name or a Mechanism class, got {mechanism!r}")
    return list(_parameters(klass))


def coerce_params(mechanism: str | type[Mechanism], fields: Mapping[str, str]) -> dict[str, Any]:
    """The mechanism parameters a form's text ``fields`` give, typed.

    A field left empty (or absent) is left out, so that the mechanism uses its
    default; a required parameter left empty, or a text not of the
    parameter's kind, raises ``ValueError``. Fields that name no parameter
    are ignored (the form's other fields).

    >>> coerce_params("shaky-ladder", {"step": "0.02", "noise": "gaussian", "snap": "", "x": "1"})
    {'step': 0.02, 'noise': 'gaussian'}
    """
    params: dict[str, Any] = {}
    for info in parameters_of(mechanism):
        text = fields.get(info.name, "")
        if text.strip() or info.required:
            params[info.name] = info.coerce(text)
    return params


def complete_params(mechanism: str | type[Mechanism], params: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter an organiser may set on ``mechanism``, in the order of
    its ``__init__``: the value in ``params`` where given, else the default
    it runs with, so that what is stored says in full what runs. A required
    parameter not given stays out (building the mechanism names it), and a
    name that is no parameter is kept (building the mechanism refuses it).

    >>> complete_params("ladder-boot", {"b": 10})
    {'alpha': 0.15, 'b': 10, 'floor': None, 'precision': None}
    >>> complete_params("ladder", {})
    {}
    """
    infos = parameters_of(mechanism)
    complete = {info.name: params.get(info.name, info.default) for info in infos}
    complete = {name: value for name, value in complete.items() if value is not REQUIRED}
    return {**complete, **{k: v for k, v in params.items() if k not in complete}}
