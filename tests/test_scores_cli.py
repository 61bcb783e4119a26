"""``ladderboard scores``: the registered names every command takes."""

import csv
import io
import json

from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.losses import LOSSES, METRICS
from ladderboard.scores_cli import SCORE_DESCRIPTIONS

runner = CliRunner()


def test_scores_as_json_lists_every_registered_score_with_its_direction():
    result = runner.invoke(app, ["scores", "--json"])
    assert result.exit_code == 0, result.output
    listed = {(row["kind"], row["name"]): row for row in json.loads(result.output)}
    assert set(listed) == {("loss", n) for n in LOSSES} | {("metric", n) for n in METRICS}
    assert listed["loss", "zero_one"]["better"] == "lower"
    assert listed["loss", "zero_one"]["bounds"] == [0, 1]  # numbers, for scripts
    assert listed["loss", "squared"]["bounds"] == [0, None]  # unbounded above
    assert listed["loss", "log_loss"]["bounds"][1] > 34.5  # the default clip's bound
    assert listed["metric", "auc"]["bounds"] is None
    assert listed["metric", "accuracy"]["better"] == "higher"
    assert listed["metric", "log_loss"]["probabilities"] is True


def test_every_registered_score_says_what_it_is():
    names = {("loss", n) for n in LOSSES} | {("metric", n) for n in METRICS}
    assert set(SCORE_DESCRIPTIONS) == names


def test_scores_piped_is_a_whole_table_and_csv_is_csv():
    result = runner.invoke(app, ["scores"])  # not a terminal: TSV
    assert result.exit_code == 0, result.output
    header, *lines = result.output.strip().splitlines()
    assert header.split("\t")[:3] == ["name", "kind", "better"]
    assert len(lines) == len(LOSSES) + len(METRICS) and "…" not in result.output
    assert "(P_k - [y = k])^2" in result.output  # cells are text, not markup
    assert "\tloss\tlower\t[0, inf)\t" in result.output  # the table writes bounds as text
    as_csv = runner.invoke(app, ["scores", "--csv"])
    rows = list(csv.reader(io.StringIO(as_csv.output)))
    assert rows[0][0] == "name"
    assert ["zero_one", "loss", "lower"] in [row[:3] for row in rows]
    both = runner.invoke(app, ["scores", "--json", "--csv"])
    assert both.exit_code == 2
