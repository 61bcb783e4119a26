"""The layers of the package hold: read every module's imports (``ast``) and
fail on an import cycle between modules, an import that runs up the layers,
an import of another package's private module, or a core module that needs
more than the core's own dependencies.

The layers, bottom up (a package may import only the packages listed for it):

- core: randomness, losses, metrics, the bootstrap, the mechanisms and their
  analysis, the array encoding; numpy and scipy (and the small core
  dependencies of ``pyproject.toml``) only;
- ``terminal``: what every command shares at the terminal (``--param``,
  tables, ``--json``, progress bars); typer and rich; any package above the
  core may import it;
- ``tasks``: the task runner and report writer that experiments, the advisor
  and replays share;
- ``files`` (solution and submission files) and ``rules`` (scoring, boards,
  per-rank boards, final selection: pure functions over the core);
- ``bundle``: a competition as a folder (``competition.yaml`` and its files),
  over ``rules``, which checks its settings; the client reads and writes it;
- ``store``: the tables, migrations and all of the SQL (no other module
  imports what builds a statement);
- ``engine``: the competitions, composed over the store and the rules;
- ``server``, ``client``, ``cli`` and ``demo`` at the top.

Attacks, the advisor and experiments stand beside the competition floors,
over the core; replays and simulations over the core, ``files`` and (replays)
``rules``; ``integrations`` (scikit-learn searches, Optuna objectives) over the
core alone, and experiments over them (a guarded search is one experiment's subject).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "ladderboard"

CORE = frozenset(
    {
        "",  # ladderboard/__init__.py
        "_array_checks",
        "_blas",
        "_kernels",
        "_validation",
        "analysis",
        "bootstrap",
        "direction",
        "encoding",
        "holdout",
        "losses",
        "mechanisms",
        "metrics",
        "random",
        "recommended",
    }
)
# What each package above the core may import, besides the core and itself.
ALLOWED: dict[str, frozenset[str]] = {
    "terminal": frozenset(),
    "tasks": frozenset(),
    "files": frozenset(),
    "rules": frozenset(),
    "store": frozenset(),
    "engine": frozenset({"files", "rules", "store"}),
    "attacks": frozenset(),
    "advisor": frozenset({"attacks", "tasks"}),
    "experiments": frozenset({"attacks", "advisor", "integrations", "tasks"}),
    "replay": frozenset({"files", "rules", "tasks"}),
    "simulation": frozenset({"attacks", "files"}),
    "bundle": frozenset({"rules"}),
    "client": frozenset({"bundle"}),
    "integrations": frozenset(),
    "scores_cli": frozenset(),
    "judge_cli": frozenset({"engine", "files", "rules"}),
    "server": frozenset({"files", "rules", "engine"}),
    "demo": frozenset({"attacks", "files", "client", "server"}),
    "cli": frozenset(
        {
            "advisor",
            "client",
            "demo",
            "engine",
            "experiments",
            "judge_cli",
            "replay",
            "scores_cli",
            "server",
            "simulation",
        }
    ),
    "__main__": frozenset({"cli"}),
}
# Third-party packages a core module may import at module level: the core's
# dependencies in pyproject.toml.
CORE_THIRD_PARTY = frozenset({"numpy", "scipy", "randomgen", "threadpoolctl"})
MIGRATIONS = PACKAGE / "store" / "migrations"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in sorted(PACKAGE.rglob("*.py"))
        if MIGRATIONS not in path.parents
    }


MODULES = _modules()


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    is_package = MODULES[importer].name == "__init__.py"
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, node.module] if node.module else base)


def imports(module: str, *, top_level_only: bool = False) -> set[str]:
    """The modules ``module`` imports: ``ladderboard`` ones resolved to the
    deepest existing module (``from a import b`` names the module ``a.b``
    when there is one), others as their distribution's top-level name.
    ``top_level_only`` leaves out imports inside functions and classes, and
    those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(MODULES[module].read_text(), filename=str(MODULES[module]))
    found: set[str] = set()
    nodes = _top_level(tree.body) if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            for alias in node.names:
                name = f"{target}.{alias.name}"
                found.add(name if name in MODULES else target)
    return {name if name in MODULES else _owner(name) for name in found}


def _top_level(body: list[ast.stmt]):
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body)


def _owner(name: str) -> str:
    """The deepest known module that ``name`` lies in, or its top-level package."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return name.split(".")[0]


def package_of(module: str) -> str:
    """The layer unit of a ``ladderboard`` module: its first component below
    ``ladderboard`` (a subpackage or a top-level module), ``""`` for the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _internal(module: str, *, top_level_only: bool = False) -> set[str]:
    return {
        name
        for name in imports(module, top_level_only=top_level_only)
        if name.startswith("ladderboard") and name != module
    }


def _missing(module: str) -> set[str]:
    """The ``ladderboard`` modules that ``module`` imports and that do not exist."""
    tree = ast.parse(MODULES[module].read_text())
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            named.add(_resolve(module, node))
    return {name for name in named if name.startswith("ladderboard") and name not in MODULES}


def test_every_import_names_a_module():
    wrong = [f"{m} imports {name}" for m in MODULES for name in sorted(_missing(m))]
    assert not wrong, "imports of modules that do not exist:\n" + "\n".join(wrong)


def test_every_package_has_a_layer():
    unknown = sorted({package_of(m) for m in MODULES} - CORE - set(ALLOWED))
    assert not unknown, f"packages with no layer in tests/test_layers.py: {unknown}"


def test_no_import_runs_up_the_layers():
    wrong = []
    for module in MODULES:
        source = package_of(module)
        if source not in CORE and source not in ALLOWED:
            continue
        allowed = CORE | {source, "terminal"} | ALLOWED.get(source, frozenset())
        if source in CORE:
            allowed = CORE
        for name in sorted(_internal(module)):
            if package_of(name) not in allowed:
                wrong.append(f"{module} imports {name}")
    assert not wrong, "imports that run up the layers:\n" + "\n".join(wrong)


def _is_private_to_another(importer: str, imported: str) -> bool:
    """Whether ``imported`` has a private component (``_name``) whose parent
    package does not contain ``importer``."""
    parts = imported.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            parent = ".".join(parts[:i])
            if importer != parent and not importer.startswith(parent + "."):
                return True
    return False


def test_no_import_of_another_packages_private_module():
    wrong = [
        f"{module} imports {name}"
        for module in MODULES
        for name in sorted(_internal(module))
        if _is_private_to_another(module, name)
    ]
    assert not wrong, "imports of another package's private module:\n" + "\n".join(wrong)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_modules():
    """A package's ``__init__`` re-exporting its modules is not a cycle with
    them: edges into a package's own ``__init__`` from inside it are left out."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module in MODULES:
        for name in _internal(module):
            if MODULES.get(name, Path()).name == "__init__.py" and module.startswith(name + "."):
                continue
            graph[module].add(name)
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


# What builds SQL: outside the store, a module may name a session or an
# engine, never a statement.
SQL_BUILDERS = frozenset(
    {"select", "insert", "update", "delete", "func", "text", "bindparam", "aliased", "literal"}
)


def test_all_sql_lives_in_the_store():
    wrong = []
    for module, path in MODULES.items():
        if package_of(module) == "store":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
                built = {alias.name for alias in node.names} & SQL_BUILDERS
                if built or (node.module or "").startswith(
                    ("sqlalchemy.sql", "sqlalchemy.dialects")
                ):
                    wrong.append(f"{module} imports {sorted(built) or node.module} from sqlalchemy")
    assert not wrong, "SQL outside the store:\n" + "\n".join(wrong)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if package_of(m) in CORE))
def test_core_modules_need_only_the_core_dependencies(module):
    outside = {
        name
        for name in imports(module, top_level_only=True)
        if not name.startswith("ladderboard")
        and name not in sys.stdlib_module_names
        and name not in CORE_THIRD_PARTY
    }
    assert not outside, f"{module} imports {sorted(outside)} at module level"


def test_the_checks_see_what_they_check():
    """The reader finds imports in every form: plain, from, relative, and
    ``from package import module``."""
    assert "ladderboard.mechanisms.base" in _internal("ladderboard.mechanisms.ladder")
    assert _is_private_to_another("ladderboard.replay.report", "ladderboard.experiments._output")
    assert not _is_private_to_another("ladderboard.attacks.boosting", "ladderboard._validation")
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
