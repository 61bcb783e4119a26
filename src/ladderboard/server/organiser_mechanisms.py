"""The create form's fields for each mechanism's parameters
(``/organiser/new``), read from the mechanism itself
(:func:`ladderboard.mechanisms.parameters_of`: its signature and the
"Parameters" section of its docstring), so that a newly registered mechanism
is offered with its parameters the moment it exists; and the chosen
mechanism's parameters read back from them.

Fields are named ``param-<mechanism>-<parameter>``, and only the chosen
mechanism's are read, so that the values typed for one never reach another.
Each holds the value that runs if it is left as it is, which its help names
("Default: ..."): the mechanism's own default, or on the default mechanism
(:data:`RECOMMENDED`) the recommended setting's.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

from ladderboard.mechanisms import COMPETITION_MECHANISMS, Mechanism, parameters_of
from ladderboard.mechanisms.parameters import REQUIRED, ParameterInfo
from ladderboard.recommended import RECOMMENDED
from ladderboard.server.organiser_forms import invalid

__all__ = [
    "EXAMPLE_N",
    "MechanismFields",
    "ParameterField",
    "display_name",
    "field_name",
    "mechanism_fields",
    "mechanism_params",
]

_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]+\.)?([^`]+)`")


def field_name(mechanism: str, parameter: str) -> str:
    """The name of the form field of ``mechanism``'s ``parameter``."""
    return f"param-{mechanism}-{parameter}"


def display_name(klass: type[Mechanism]) -> str:
    """A mechanism's class name in words, the papers' ``Boot`` kept to its word:
    ``ShakyLadder`` → ``Shaky Ladder``, ``BayesBootLadder`` → ``BayesBoot Ladder``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])(?!Boot)", " ", klass.__name__)


def _summary(klass: type[Mechanism]) -> str:
    """The first paragraph of the mechanism's docstring, reST markup removed."""
    first = inspect.cleandoc(klass.__doc__ or "").split("\n\n", 1)[0]
    return _ROLE.sub(r"\1", " ".join(first.split())).replace("``", "")


def _text(value: Any) -> str:
    """A default as the form shows it (nothing for none or a required one)."""
    if value is None or value is REQUIRED:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


EXAMPLE_N = 4000
"""The holdout size the help of a parameter that scales with it shows as an
example (the size the defaults are measured at, Blum & Hardt 2015's Kaggle
holdouts being of that order)."""


def _recommended_default(mechanism: str, name: str) -> Any:
    """What the form fills a parameter with on the default mechanism: the
    recommended setting's fixed value, or ``None`` for one that scales with
    the holdout; :data:`REQUIRED` where the recommended setting says nothing."""
    if mechanism != RECOMMENDED.mechanism:
        return REQUIRED
    if name in RECOMMENDED.per_root_n:
        return None
    return RECOMMENDED.params.get(name, REQUIRED)


@dataclasses.dataclass(frozen=True)
class ParameterField:
    """One parameter's field: ``default`` is what runs when the field is left
    as the blank form fills it."""

    info: ParameterInfo
    field: str
    value: str
    mechanism: str = ""

    @property
    def scaled(self) -> float | None:
        """The multiple of ``1/√n`` the recommended setting gives it, if any."""
        if self.mechanism != RECOMMENDED.mechanism:
            return None
        return RECOMMENDED.per_root_n.get(self.info.name)

    @property
    def default(self) -> Any:
        chosen = _recommended_default(self.mechanism, self.info.name)
        return self.info.default if chosen is REQUIRED else chosen

    @property
    def required(self) -> bool:
        return self.info.required and self.scaled is None and self.default is REQUIRED

    @property
    def default_sentence(self) -> str:
        multiple = self.scaled
        if multiple is not None:
            example = RECOMMENDED.params_at(EXAMPLE_N)[self.info.name]
            return (
                f"Default: {multiple:g}/√n for the solution's n public rows, to three "
                f"significant digits ({example} at {EXAMPLE_N} rows), {RECOMMENDED.label} "
                "being ladderboard's default: filled in when you choose the solution "
                "file, and used if left empty."
            )
        if self.required:
            return "Required."
        if self.default is None:
            return "Leave it empty for the mechanism's own choice."
        return f"Default: {_text(self.default)}."


@dataclasses.dataclass(frozen=True)
class MechanismFields:
    """A mechanism as the form offers it: what it scores and its parameters."""

    name: str
    display: str
    summary: str
    input_kind: str
    params: tuple[ParameterField, ...]
    caution: str = ""


def mechanism_fields(values: dict[str, str]) -> list[MechanismFields]:
    """Every registered mechanism with its parameter fields, filled with
    ``values`` (what was sent) or else the defaults."""
    offered = []
    for name, klass in sorted(COMPETITION_MECHANISMS.items()):
        params = []
        for info in parameters_of(name):
            field = field_name(name, info.name)
            blank = ParameterField(info, field, "", name)
            params.append(dataclasses.replace(blank, value=values.get(field, _text(blank.default))))
        offered.append(
            MechanismFields(
                name,
                display_name(klass),
                _summary(klass),
                klass.input_kind,
                tuple(params),
                klass.caution,
            )
        )
    return offered


def _parameter_refusal(klass: type[Mechanism], info: ParameterInfo, text: str, why: str) -> str:
    """``why`` (the parameter's own check) as a sentence about the mechanism:
    "the Ladder needs its step eta: give a number"."""
    name = display_name(klass)
    if info.required and not text.strip():
        clause = info.help.split(":", 1)[0].split(",", 1)[0]
        noun = clause[4:].lower() + " " if clause.startswith("The ") and len(clause) < 30 else ""
        give = why.split(": ", 1)[1] if ": " in why else ""
        return f"the {name} needs its {noun}{info.name}" + (f": {give}" if give else "")
    return f"the {name}'s {why}"


def mechanism_params(mechanism: str, values: dict[str, str]) -> dict[str, Any]:
    """The chosen mechanism's parameters from its fields, typed; an empty
    field leaves the default (the engine writes it out)."""
    klass = COMPETITION_MECHANISMS[mechanism]
    params: dict[str, Any] = {}
    for info in parameters_of(mechanism):
        text = values.get(field_name(mechanism, info.name), "")
        filled = _recommended_default(mechanism, info.name) is not REQUIRED
        if not text.strip() and (filled or not info.required):
            continue
        try:
            params[info.name] = info.coerce(text)
        except (TypeError, ValueError) as exc:
            raise invalid(_parameter_refusal(klass, info, text, str(exc))) from None
    return params
