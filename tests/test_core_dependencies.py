"""The core (randomness, losses, metrics, the bootstrap, the mechanisms and
their analysis, the array encoding) runs on numpy and scipy alone: ``pip
install ladderboard`` without extras can import it, and save and restore a
mechanism. Checked in a fresh interpreter in which the packages of the extras
cannot be imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from test_layers import CORE, MODULES, PACKAGE, package_of

BLOCKED = ("pyarrow", "pandas", "sqlalchemy", "sklearn", "matplotlib", "optuna")


def core_modules() -> list[str]:
    """Every module of the core layer (``tests/test_layers.py`` says which)."""
    return sorted(module for module in MODULES if package_of(module) in CORE)


SCRIPT = """
import importlib, importlib.abc, json, sys

BLOCKED = {blocked!r}

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked: the core must not need it")
        return None

sys.meta_path.insert(0, Block())
for name in {modules!r}:
    importlib.import_module(name)

import numpy as np
from ladderboard.mechanisms import BayesBootLadder, Mechanism, ParameterFreeLadder

rng = np.random.default_rng(0)
y = rng.normal(size=50)
for board, xs, secrets in [
    (ParameterFreeLadder(), [(rng.random(50) < p) * 1.0 for p in (0.5, 0.3, 0.2)], {{}}),
    (BayesBootLadder(metric="pearson", y_true=y, B=50, random_state=1),
     [y + rng.normal(scale=s, size=50) for s in (2.0, 1.0, 0.5)], {{"y_true": y}}),
]:
    board.submit(xs[0])
    key = board.get_state(secrets=True)["key"]
    state = json.loads(json.dumps(board.get_state()))
    again = Mechanism.from_state(state, **secrets, **({{"key": key}} if key else {{}}))
    for x in xs[1:]:
        assert again.submit(x) == board.submit(x)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
assert not loaded, loaded
print("ok")
"""


def test_the_core_imports_and_runs_without_the_extras():
    script = SCRIPT.format(blocked=BLOCKED, modules=core_modules())
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
