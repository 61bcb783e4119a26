"""The bundle format read and written without a server: what it accepts,
what it refuses (each refusal naming its key), and that writing is
deterministic."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from ladderboard.bundle import (
    BUNDLE_FILE,
    KEYS,
    SETTINGS,
    Bundle,
    BundleError,
    read_bundle,
    write_bundle,
)

SOLUTION = b"id,target,Usage\n1,0,Public\n2,1,Private\n3,1,Public\n"


def folder_with(tmp_path, text: str, files: dict[str, bytes] | None = None):
    """A folder holding ``competition.yaml`` of ``text``, a solution, and
    ``files`` by their paths."""
    (tmp_path / "solution.csv").write_bytes(SOLUTION)
    for name, data in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (tmp_path / BUNDLE_FILE).write_text(text)
    return tmp_path


MINIMAL = "format: 1\nslug: demo\nsolution: solution.csv\nscore: zero_one\n"


def test_a_minimal_bundle_leaves_the_rest_to_the_defaults(tmp_path):
    bundle = read_bundle(folder_with(tmp_path, MINIMAL) / BUNDLE_FILE)
    assert bundle.settings == {"score": "zero_one"}
    assert (bundle.title, bundle.overview, bundle.rules, bundle.data_files) == (None, "", "", ())
    assert bundle.solution == SOLUTION
    assert bundle.form() == {"score": "zero_one"}


def test_a_deadline_read_by_yaml_as_a_time_is_sent_as_iso_text(tmp_path):
    text = MINIMAL + "deadline: 2099-01-31T23:59:00+01:00\ndaily_quota: null\ntotal_quota: null\n"
    bundle = read_bundle(folder_with(tmp_path, text))
    assert bundle.config().deadline == datetime(2099, 1, 31, 22, 59, tzinfo=UTC)
    # no daily limit is said; no total limit is the default, so it is left out
    assert bundle.form() == {
        "score": "zero_one",
        "deadline": "2099-01-31T23:59:00+01:00",
        "daily_quota": "none",
    }


@pytest.mark.parametrize("name", [s for s in SETTINGS if s not in ("score", "mechanism")])
def test_a_bad_value_of_any_setting_is_refused_naming_it(tmp_path, name):
    text = MINIMAL + f"mechanism: ladder\n{name}: [1, 2]\n"
    with pytest.raises(BundleError, match=name):
        read_bundle(folder_with(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[1, 2]", "must be a mapping"),
        ("format: 1\nslug: [", "not YAML"),
        (MINIMAL.replace("format: 1\n", ""), "format must be 1"),
        (MINIMAL.replace("score: zero_one\n", ""), "score is required"),
        (MINIMAL.replace("solution: solution.csv\n", ""), "solution is required"),
        (MINIMAL.replace("slug: demo", "slug: a b"), "slug must be"),
        (MINIMAL + "mechanism: 3\n", "mechanism must be a name"),
        (MINIMAL + "score_params: {clip: 2}\n", "score_params: "),
        (MINIMAL + "title: [x]\n", "title must be text"),
        (MINIMAL + "mechanism_params: {eta: 0.1}\n", "give mechanism too"),
        (MINIMAL + "mechanism: null\nmechanism_params: {eta: 0.1}\n", "give mechanism too"),
        (MINIMAL.replace("score: zero_one", "score: null"), "score is required"),
        (MINIMAL + "score: log_loss\n", "the key 'score' is given twice"),
        (MINIMAL + "deadline: 2099-01-31\n", "deadline must be a datetime"),
        (MINIMAL + "solution_file: solution.csv\n", "unknown key 'solution_file'"),
        (MINIMAL.replace("solution.csv", "..\\\\solution.csv"), "leads out of the folder"),
        (MINIMAL.replace("solution.csv", "C:/solution.csv"), "is absolute"),
        (MINIMAL.replace("solution.csv", "data"), "no file 'data'"),
        (MINIMAL + "data_files: data/a.csv\n", "data_files must be a list"),
        (MINIMAL + "data_files: [data/a.csv, b/a.csv]\n", "would both be 'a.csv'"),
        (MINIMAL + "data_files: [data/sample_submission.csv]\n", "is generated"),
        (MINIMAL + "overview_file: bad.md\n", "overview_file: 'bad.md' is not UTF-8"),
        (MINIMAL + 'rules: "a\\u0000b"\n', "rules contains the control character"),
    ],
)
def test_a_bad_bundle_is_refused_saying_why(tmp_path, text, words):
    files = {"data/a.csv": b"x\n", "b/a.csv": b"y\n", "bad.md": b"\xff\xfe"}
    folder = folder_with(tmp_path, text, files | {"data/sample_submission.csv": b"id\n"})
    with pytest.raises(BundleError) as refused:
        read_bundle(folder)
    assert words in str(refused.value)
    assert str(folder / BUNDLE_FILE) in str(refused.value)


def test_a_missing_bundle_is_said(tmp_path):
    with pytest.raises(BundleError, match="no such file"):
        read_bundle(tmp_path)


def bundle() -> Bundle:
    return Bundle(
        slug="demo",
        solution=SOLUTION,
        settings={"score": "log_loss", "score_params": {"clip": [0.01, 0.99]}, "ranks": 3},
        overview="# Demo\n\nPredict.",
        rules="",
        data_files=(("train.csv", b"id,x\n1,2\n"), ("a.csv", b"a\n")),
    )


def test_a_written_bundle_reads_back_with_every_setting(tmp_path):
    written = write_bundle(bundle(), tmp_path / "out")
    again = read_bundle(written)
    assert again.config() == bundle().config()
    assert set(again.settings) == set(SETTINGS)
    assert (again.title, again.overview, again.rules) == ("demo", "# Demo\n\nPredict.", "")
    assert sorted(again.data_files) == sorted(bundle().data_files)
    assert again.solution == SOLUTION
    document = yaml.safe_load(written.read_text())
    assert list(document)[:9] == [k for k in KEYS if k not in ("overview", "rules")][:9]


def test_writing_the_same_bundle_twice_gives_the_same_bytes(tmp_path):
    one, two = write_bundle(bundle(), tmp_path / "a"), write_bundle(bundle(), tmp_path / "b")
    names = sorted(p.relative_to(one.parent) for p in one.parent.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(two.parent) for p in two.parent.rglob("*") if p.is_file())
    for name in names:
        assert (one.parent / name).read_bytes() == (two.parent / name).read_bytes()


def test_a_bundle_is_written_into_a_new_or_empty_folder_only(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(BundleError, match="new or empty folder"):
        write_bundle(bundle(), tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


ROOT = Path(__file__).resolve().parents[1]
DOCUMENTED = [
    block
    for page in ("README.md", "docs/organiser.md")
    for block in re.findall(r"^```yaml\n(.*?)^```", (ROOT / page).read_text(), re.M | re.S)
]


@pytest.mark.parametrize("block", DOCUMENTED, ids=lambda b: b.split("\n")[1])
def test_every_bundle_the_docs_show_reads(tmp_path, block):
    document = yaml.safe_load(block)
    paths = [
        document.get("overview_file"),
        document.get("rules_file"),
        *document.get("data_files", []),
    ]
    files = {path: b"id,x\n1,2\n" for path in paths if path is not None}
    bundle = read_bundle(folder_with(tmp_path, block, files))
    assert bundle.slug == document["slug"]


def test_the_docs_show_bundles():
    assert len(DOCUMENTED) == 2


def test_the_solution_listed_as_a_data_file_is_refused(tmp_path):
    """Data files are for every participant: the solution among them would
    publish its labels."""
    text = MINIMAL + "data_files: [labels.csv]\n"
    folder = folder_with(tmp_path, text, {"labels.csv": SOLUTION})
    with pytest.raises(BundleError, match=r"'labels\.csv' is the solution itself"):
        read_bundle(folder)
