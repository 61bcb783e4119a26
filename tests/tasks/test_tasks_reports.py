"""Report templates: the parts of a file, the checks that keep a template and
the code that fills it in step, and every shipped template read in full."""

from __future__ import annotations

import string
from importlib import resources

import pytest

from ladderboard.tasks import reports
from ladderboard.tasks.reports import ReportTemplate, fill, load_template, paragraphs

SHIPPED = [
    (package, path.name.removesuffix(".md"))
    for package in ("ladderboard.experiments", "ladderboard.replay")
    for path in resources.files(package).joinpath("templates").iterdir()
    if path.name.endswith(".md")
]


def _template(tmp_path, monkeypatch, text: str) -> ReportTemplate:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "x.md").write_text(text, encoding="utf-8")
    monkeypatch.setattr(reports.resources, "files", lambda package: tmp_path)
    load_template.cache_clear()
    try:
        return load_template("any", "x")
    finally:
        load_template.cache_clear()


def test_parts_run_to_the_next_marker_without_their_final_newlines(tmp_path, monkeypatch):
    template = _template(
        tmp_path, monkeypatch, "<!-- report -->\n# $title\n\n$body\n\n<!-- body -->\nk = $k.\n"
    )
    assert sorted(template.parts) == ["body", "report"]
    body = template.part("body", k=4)
    assert body == "k = 4."
    assert template.report(title="T", body=body) == "# T\n\nk = 4.\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("words\n<!-- report -->\nx\n", "text before the first"),
        ("<!-- report -->\nx\n<!-- report -->\ny\n", "named twice"),
    ],
)
def test_a_malformed_file_is_refused(tmp_path, monkeypatch, text, message):
    with pytest.raises(ValueError, match=message):
        _template(tmp_path, monkeypatch, text)


def test_a_missing_or_unused_value_is_refused():
    with pytest.raises(ValueError, match=r"placeholders without a value: \['b'\]"):
        fill(string.Template("$a $b"), {"a": 1})
    with pytest.raises(ValueError, match=r"values without a placeholder in the template: \['c'\]"):
        fill(string.Template("$a"), {"a": 1, "c": 2})
    with pytest.raises(ValueError, match="neither a placeholder"):
        fill(string.Template("costs $ 5"), {})


def test_an_unknown_part_names_the_parts():
    template = ReportTemplate({"report": string.Template("x")})
    with pytest.raises(ValueError, match=r"no template part 'nope'; parts: \['report'\]"):
        template.part("nope")


def test_paragraphs_leave_out_the_empty_ones():
    assert paragraphs("", "a", "", "b") == "a\n\nb"
    assert paragraphs() == ""


@pytest.mark.parametrize(("package", "name"), SHIPPED)
def test_every_shipped_template_has_a_report_and_valid_placeholders(package, name):
    template = load_template(package, name)
    assert "report" in template.parts
    for part, text in template.parts.items():
        assert text.is_valid(), f"{name}.md, part {part}: a stray '$'"


def test_every_experiment_has_a_template():
    from ladderboard.experiments import EXPERIMENTS

    names = {name for package, name in SHIPPED if package == "ladderboard.experiments"}
    assert names == set(EXPERIMENTS)
