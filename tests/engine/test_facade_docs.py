"""The facade's documentation: each :class:`Competitions` method that hands
its work to a resource module shows that method's docstring, under its own
name and signature, and the docs site's griffe extension sees the same text."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from ladderboard.engine import Competitions
from ladderboard.engine.boards import Boards
from ladderboard.engine.data_files import DataFiles
from ladderboard.engine.documented import documented_by
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.submissions import Submissions
from ladderboard.engine.teams import Teams

RESOURCES = (Lifecycle, Teams, DataFiles, Boards, Submissions)
ROOT = Path(__file__).resolve().parents[2]


def _public_methods(klass: type) -> dict[str, object]:
    return {
        name: member
        for name, member in vars(klass).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }


def test_every_documented_resource_method_documents_the_facade():
    facade = _public_methods(Competitions)
    checked = 0
    for resource in RESOURCES:
        for name, method in _public_methods(resource).items():
            if name in facade and method.__doc__:
                assert facade[name].__doc__ == method.__doc__, name
                assert facade[name].__name__ == name
                assert facade[name].__qualname__ == f"Competitions.{name}"
                checked += 1
    assert checked >= 30


def test_the_facade_keeps_its_own_signature():
    parameters = inspect.signature(Competitions.create).parameters
    assert next(iter(parameters)) == "self"
    assert "random_state" in parameters
    assert inspect.getdoc(Competitions.create).startswith("Create a competition")


def test_documented_by_refuses_an_undocumented_source():
    def bare() -> None:
        pass

    with pytest.raises(TypeError, match="documented source"):
        documented_by(bare)


@pytest.mark.slow
def test_the_docs_extension_gives_the_facade_its_docstrings():
    griffe = pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    extensions = griffe.load_extensions(hooks.NumpySections)
    engine = griffe.load(
        "ladderboard.engine",
        search_paths=[str(ROOT / "src")],
        extensions=extensions,
        resolve_aliases=False,
    )
    facade = engine["competitions.Competitions"]
    for name in ("create", "board", "member_admission", "submit", "explain"):
        docstring = facade[name].docstring
        assert docstring is not None, name
        assert docstring.value == hooks.sectioned(inspect.getdoc(getattr(Competitions, name)))
