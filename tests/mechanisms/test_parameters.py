"""``parameters_of`` and the form helpers, over every registered mechanism: a
new mechanism is offered with its parameters, their kinds and their help the
moment it is registered, or this suite says what it lacks."""

from __future__ import annotations

import inspect
import re
import typing

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladderboard.mechanisms import (
    MECHANISMS,
    REQUIRED,
    Ladder,
    ParameterInfo,
    coerce_params,
    make_mechanism,
    parameters,
    parameters_of,
)
from ladderboard.mechanisms.parameters import ENGINE_SUPPLIED, KINDS, docstring_parameters
from ladderboard.mechanisms.shaky import NOISES

ALL = sorted(MECHANISMS)


def _as_text(info: ParameterInfo, value):
    """How a form would show ``value`` in the field of ``info``."""
    if info.kind == "bool":
        return "yes" if value else "no"
    if info.kind == "vector":
        return ", ".join(repr(v) for v in value)
    return str(value)


@pytest.mark.parametrize("name", ALL)
def test_params_are_the_keyword_only_ones_the_engine_leaves(name):
    klass = MECHANISMS[name]
    signature = inspect.signature(klass.__init__)
    expected = [
        p
        for p, parameter in signature.parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY and p not in ENGINE_SUPPLIED
    ]
    infos = parameters_of(name)
    assert [info.name for info in infos] == expected
    assert parameters_of(klass) == infos
    for info in infos:
        assert info.kind in KINDS
        assert (info.kind == "choice") == bool(info.choices)
        default = signature.parameters[info.name].default
        assert info.required == (default is inspect.Parameter.empty)
        if not info.required:
            assert info.default == default


def test_params_every_parameter_has_help():
    lacking = [
        f"{name}.{info.name}" for name in ALL for info in parameters_of(name) if not info.help
    ]
    assert lacking == [], "add these to the 'Parameters' section of the class docstring"


@pytest.mark.parametrize("name", ALL)
def test_params_help_is_one_plain_sentence(name):
    for info in parameters_of(name):
        assert info.help.endswith(".")
        assert "``" not in info.help and ":func:" not in info.help
        assert ". " not in info.help.rstrip("."), info.help


@pytest.mark.parametrize("name", ALL)
def test_params_defaults_survive_a_form(name):
    """Each default, written in its field and read back, is the default; a
    form of defaults builds the mechanism."""
    klass = MECHANISMS[name]
    test_params = klass._unit_test_params(20, np.random.default_rng(0))
    fields = {}
    for info in parameters_of(name):
        if info.required:  # written as the shared suite sets it
            fields[info.name] = _as_text(info, test_params.get(info.name, 0.01))
            continue
        if info.default is None:
            continue
        fields[info.name] = _as_text(info, info.default)
        assert info.coerce(fields[info.name]) == info.default
        assert info.coerce("") == info.default
    params = coerce_params(name, fields)
    engine = {
        k: v
        for k, v in klass._unit_test_params(20, np.random.default_rng(0)).items()
        if k in ENGINE_SUPPLIED
    }
    mechanism = make_mechanism(name, **engine, **params, random_state=0)
    assert {k: mechanism.get_params()[k] for k in params} == params


def test_params_noise_choices_come_from_noises():
    (noise,) = [info for info in parameters_of("shaky-ladder") if info.name == "noise"]
    assert noise.kind == "choice" and noise.choices == NOISES
    assert noise.coerce("Gaussian") == "gaussian"
    with pytest.raises(ValueError, match=r"^noise must be one of 'laplace', 'gaussian', got 'x'$"):
        noise.coerce("x")


def test_params_coerce_says_what_is_wrong_in_a_sentence():
    infos = {i.name: i for n in ALL for i in parameters_of(n)}
    cases = [
        (parameters_of("ladder")[0], "abc", "eta must be a number, got 'abc'"),
        (parameters_of("ladder")[0], "nan", "eta must be a finite number, got 'nan'"),
        (parameters_of("ladder")[0], "  ", "eta is required: give a number"),
        (infos["b"], "1.5", "b must be a whole number, got '1.5'"),
        (infos["b"], "ten", "b must be a whole number, got 'ten'"),
        (infos["snap"], "maybe", "snap must be yes or no, got 'maybe'"),
        (infos["baseline"], "1, x", "baseline must be finite numbers separated by commas"),
    ]
    for info, text, message in cases:
        with pytest.raises(ValueError, match="^" + re.escape(message)):
            info.coerce(text)
    with pytest.raises(TypeError, match="eta must be given as text"):
        parameters_of("ladder")[0].coerce(0.1)


def test_params_coerce_reads_the_forms_of_each_kind():
    infos = {i.name: i for n in ALL for i in parameters_of(n)}
    assert infos["b"].coerce("1e3") == 1000 and isinstance(infos["b"].coerce("1e3"), int)
    assert [infos["snap"].coerce(t) for t in ("on", "TRUE", "1", "off", "No")] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert infos["baseline"].coerce("[0.5, 1]") == [0.5, 1.0]
    assert infos["baseline"].coerce("0.5 1;2") == [0.5, 1.0, 2.0]
    assert infos["noise_scale"].coerce("") is None


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_params_float_fields_read_back_any_finite_number(x):
    eta = parameters_of("ladder")[0]
    assert eta.coerce(repr(x)) == x
    assert eta.coerce(f" {x} ") == x


def test_params_coerce_params_leaves_empty_fields_out_and_needs_the_required():
    assert coerce_params("ladder", {"eta": "0.05", "other": "x"}) == {"eta": 0.05}
    assert coerce_params("ladder-boot", {"alpha": "", "b": " 20 "}) == {"b": 20}
    assert coerce_params("parameter-free-ladder", {}) == {}
    with pytest.raises(ValueError, match=r"^eta is required"):
        coerce_params("ladder", {})
    with pytest.raises(ValueError, match="unknown mechanism 'nope'"):
        parameters_of("nope")
    with pytest.raises(TypeError):
        parameters_of(int)  # type: ignore[arg-type]


def test_params_required_is_one_sentinel():
    import copy
    import pickle

    assert repr(REQUIRED) == "REQUIRED"
    assert copy.deepcopy(REQUIRED) is REQUIRED
    assert pickle.loads(pickle.dumps(REQUIRED)) is REQUIRED


def test_params_an_annotation_no_field_holds_is_refused():
    class Gridded(Ladder):  # no ``name``: not registered
        def __init__(self, *, eta: float, grid: tuple[float, float] = (0.0, 1.0)):
            super().__init__(eta=eta)

    with pytest.raises(TypeError, match=r"Gridded.grid is annotated"):
        parameters_of(Gridded)
    assert "Gridded" not in {k.__name__ for k in MECHANISMS.values()}


@pytest.mark.parametrize("optional", [False, True])
def test_params_an_array_like_alias_without_members_is_read_right(monkeypatch, optional):
    """numpy 2.5 makes ``ArrayLike`` an alias object (``TypeAliasType``),
    whose ``typing.get_args`` is empty: every annotation is a superset of
    nothing, so a test of "all of its members" took any annotation as a
    vector. A ``NewType`` has no members either, and stands for it here."""
    alias = typing.NewType("ArrayLike", object)
    monkeypatch.setattr(parameters, "ArrayLike", alias)
    assert typing.get_args(alias) == ()

    class Gridded(Ladder):  # no ``name``: not registered
        def __init__(self, *, eta: float, grid: dict | None = None):
            super().__init__(eta=eta)

    with pytest.raises(TypeError, match=r"Gridded.grid is annotated"):
        parameters_of(Gridded)

    class Weighted(Ladder):
        def __init__(self, *, eta: float, weights: object = None):
            super().__init__(eta=eta)

    Weighted.__init__.__annotations__["weights"] = alias | None if optional else alias
    (_, weights) = parameters_of(Weighted)
    assert weights.kind == "vector"


def test_params_docstring_section_ends_at_prose_and_at_the_next_section():
    doc = """Summary.

    Parameters
    ----------
    a, b : int
        Two counts. More words.
    c
        No type, e.g. ``x``, and :func:`~ladderboard.mechanisms.shaky.snap_grid` here.

    Prose after the section mentions d : float.

    Returns
    -------
    x : float
        Not a parameter.
    """
    assert docstring_parameters(doc) == {
        "a": "Two counts.",
        "b": "Two counts.",
        "c": "No type, e.g. x, and snap_grid here.",
    }
    assert docstring_parameters(
        doc.replace("    Prose after the section mentions d : float.\n", "")
    )["c"].startswith("No type")
    assert docstring_parameters("No sections.") == docstring_parameters(None) == {}
    shaky = docstring_parameters(MECHANISMS["shaky-ladder"].__doc__)
    assert set(shaky) == {
        "noise_scale",
        "step",
        "noise",
        "max_updates",
        "snap",
        "n",
        "random_state",
    }
    assert all(help_.endswith(".") for help_ in shaky.values())
