"""``ladderboard experiment list`` and ``ladderboard experiment run``, in-process."""

import json
import subprocess
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.experiments import EXPERIMENTS

runner = CliRunner()


def test_list_prints_one_whole_line_per_experiment_when_piped():
    result = runner.invoke(app, ["experiment", "list"])  # not a terminal: TSV
    assert result.exit_code == 0, result.output
    header, *lines = result.output.strip().splitlines()
    assert header.split("\t") == ["id", "aliases", "reps", "reproduces"]
    rows = [line.split("\t") for line in lines]
    assert [row[0] for row in rows] == list(EXPERIMENTS)
    assert [row[3] for row in rows] == [e.description for e in EXPERIMENTS.values()]
    assert "Fig. 3" in rows[0][3] and "…" not in result.output


def test_list_as_json():
    result = runner.invoke(app, ["experiment", "list", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert [e["id"] for e in listed] == list(EXPERIMENTS)
    assert listed[0]["aliases"] == list(EXPERIMENTS[listed[0]["id"]].aliases)


@pytest.mark.parametrize("name", [pytest.param("e1", marks=pytest.mark.slow), "shaky-majority"])
def test_run_writes_the_table_the_figures_and_the_report(tmp_path, name):
    result = runner.invoke(
        app,
        ["experiment", "run", name, "--quick", "--reps", "2", "--out", str(tmp_path / "out")],
    )
    assert result.exit_code == 0, result.output
    ident = "e1" if name == "e1" else "e3"
    files = {p.name: p for p in (tmp_path / "out").iterdir()}
    assert set(files) == {f"{ident}.{suffix}" for suffix in ("csv", "png", "svg", "md")}
    assert files[f"{ident}.png"].read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in files[f"{ident}.svg"].read_bytes()[:2000]
    report = files[f"{ident}.md"].read_text()
    assert report.startswith(f"# {ident.upper()}") and "quick run: 2 repetitions" in report
    table = pd.read_csv(files[f"{ident}.csv"])
    assert sorted(table.rep.unique()) == [0, 1]
    assert f"wrote {files[f'{ident}.md']}" in result.output


def test_the_paper_numbers_stand_beside_the_measured_ones(tmp_path):
    result = runner.invoke(app, ["experiment", "run", "e1", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = (tmp_path / "e1.md").read_text()
    for paper in ("0.427", "0.451", "0.484", "0.488"):
        assert f"| {paper} |" in report


def test_unknown_ids_and_backends_are_refused(tmp_path):
    result = runner.invoke(app, ["experiment", "run", "e99", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown experiment" in result.output
    result = runner.invoke(app, ["experiment", "run", "e1", "--backend", "spark"])
    assert result.exit_code == 2
    assert not any(tmp_path.iterdir())


def test_the_command_does_not_import_the_experiments_until_it_runs():
    code = (
        "import sys, ladderboard.cli; "
        "print(any(m in sys.modules for m in ('pandas', 'ladderboard.attacks')))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "False"
