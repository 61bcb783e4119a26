"""simulate-competition: same seed, same bytes; bad options refused before writing; the CLI."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from ladderboard.simulation import simulate_competition
from ladderboard.simulation.cli import register

SMALL = {"dataset": "synthetic", "rows": 300, "teams": 4, "submissions": 14, "adversaries": 1}


def tree(root):
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def app() -> typer.Typer:
    application = typer.Typer()

    @application.callback()
    def main() -> None:
        """A bare app to hold the command."""

    register(application)
    return application


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    a = simulate_competition(out=tmp_path / "a" / "c", seed=5, defect_rate=0.3, **SMALL)
    simulate_competition(out=tmp_path / "b" / "c", seed=5, defect_rate=0.3, **SMALL)
    simulate_competition(out=tmp_path / "d" / "c", seed=6, defect_rate=0.3, **SMALL)
    first, second = tree(tmp_path / "a" / "c"), tree(tmp_path / "b" / "c")
    assert len(first) == 6 + 14 and first == second
    other = tree(tmp_path / "d" / "c")
    assert other["solution.csv"] != first["solution.csv"]
    assert a.n_defects == round(0.3 * 14)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dataset": "mnist"}, "unknown dataset 'mnist'"),
        ({"teams": 0}, "teams must be an integer >= 1"),
        ({"teams": 3, "adversaries": 3}, "adversaries must be fewer than teams"),
        ({"teams": 10, "submissions": 5}, "submissions must be at least"),
        ({"rows": 1000}, "rows applies to the synthetic dataset only"),
        ({"dataset": "synthetic", "rows": 5}, "rows must be an integer >= 200"),
        ({"public_fraction": 1.0}, "public_fraction must be a finite number in (0, 1)"),
        ({"defect_rate": -0.1}, "defect_rate must be a finite number in [0, 0.5)"),
    ],
)
def test_bad_options_fail_before_writing(tmp_path, options, message):
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=re.escape(message)):
        simulate_competition(out=out, **options)
    assert not out.exists()


def test_non_empty_out_needs_force(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="is not empty"):
        simulate_competition(out=out, **SMALL)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    simulate_competition(out=out, force=True, **SMALL)
    simulate_competition(out=out, force=True, **SMALL)  # a previous simulation is replaced
    assert len(list((out / "submissions").iterdir())) == 14
    assert (out / "notes.txt").read_text() == "mine"


def test_cli_writes_a_competition_and_refuses_bad_options(tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli"
    args = ["simulate-competition", "--dataset", "synthetic", "--rows", "300", "--teams", "3"]
    args += ["--submission-count", "9", "--adversaries", "1", "--seed", "2", "--out", str(out)]
    result = runner.invoke(app(), args)  # with the progress bar
    assert result.exit_code == 0, result.output
    assert "wrote 9 submissions of 3 teams" in result.output
    assert len(list((out / "submissions").iterdir())) == 9
    again = runner.invoke(app(), [*args, "--quiet"])
    assert again.exit_code == 2 and "is not empty" in again.output
    bad = runner.invoke(
        app(), ["simulate-competition", "--teams", "0", "--out", str(tmp_path / "x")]
    )
    assert bad.exit_code == 2 and "teams must be an integer >= 1" in bad.output
    assert not (tmp_path / "x").exists()
    unknown = runner.invoke(
        app(), ["simulate-competition", "--dataset", "iris", "--out", str(tmp_path / "y")]
    )
    assert unknown.exit_code == 2 and "unknown dataset 'iris'" in unknown.output
    few = runner.invoke(app(), [*args[:-1], str(tmp_path / "z"), "--submission-count", "2"])
    assert few.exit_code == 2 and "--submission-count: the count must be at least" in few.output
    old = runner.invoke(app(), [*args[:-1], str(tmp_path / "z"), "--submissions", "9"])
    assert old.exit_code == 2 and "No such option" in old.output


def test_cli_module_imports_only_typer_and_the_standard_library():
    import ast
    import sys
    from pathlib import Path

    import ladderboard.simulation.cli as cli

    tree_ = ast.parse(Path(cli.__file__).read_text())
    top = [node for node in tree_.body if isinstance(node, ast.Import | ast.ImportFrom)]
    names = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in top
        for alias in node.names
    }
    assert names <= {"__future__", "typer"} | set(sys.stdlib_module_names)
    import subprocess

    probe = "import sys, ladderboard.simulation.cli; print('numpy' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "False"  # the package's exports load lazily


def test_default_dataset_and_a_ladder_board(tmp_path):
    """ISLR Default as the dataset, and a Ladder (Blum & Hardt 2015, Fig. 1) as every
    team's board: the releases are on its grid and never rise within a team."""
    from ladderboard.mechanisms import Ladder

    summary = simulate_competition(
        out=tmp_path / "d",
        dataset="default",
        teams=3,
        submissions=12,
        adversaries=0,
        board=lambda team: Ladder(eta=0.01),
        seed=1,
    )
    header = (tmp_path / "d" / "solution.csv").read_text().split("\n", 1)[0]
    assert header == "id,default,Usage" and summary.n_test == 5000
    releases: dict[str, list[float]] = {}
    for record in summary.records:
        if record.release is not None:
            releases.setdefault(record.team, []).append(record.release)
    for shown in releases.values():
        assert all(abs(r * 100 - round(r * 100)) < 1e-9 for r in shown)
        assert shown == sorted(shown, reverse=True)
    with pytest.raises(TypeError, match="board must be a callable"):
        simulate_competition(out=tmp_path / "e", board="ladder", **SMALL)
    assert not (tmp_path / "e").exists()
