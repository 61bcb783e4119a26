"""The form that creates a competition, in-process on SQLite and PostgreSQL:
one field per parameter of each mechanism, with its default and help; a
competition made with its files, board, quotas and deadline in a time zone;
every refusal a plain sentence that keeps what was typed and stores nothing;
and the advisor's table, whose every row the engine accepts."""

from __future__ import annotations

from datetime import UTC, datetime
from html import unescape

import pytest
from organiser_helpers import TECHNICAL, alert, sign_in, state, status
from server_helpers import create
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS, ShakyLadder, parameters_of
from ladderboard.mechanisms.parameters import REQUIRED
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.server.organiser_advice import ADVICE, advice_for


def _create_form(**fields) -> dict[str, str]:
    return {
        "slug": "demo",
        "title": "Flower challenge",
        "description": "# Overview\nPredict the flowers.",
        "rules": "- One account a team.",
        "mechanism": "parameter-free-ladder",
        "score": "zero_one",
        "zone": "UTC",
        **fields,
    }


def _post_create(client, csrf, fields, solution_csv: bytes | None, files=()):
    uploads = [("files", (name, content, "text/csv")) for name, content in files]
    if solution_csv is not None:
        uploads.append(("solution", ("solution.csv", solution_csv, "text/csv")))
    return client.post(
        "/organiser/competitions", data={"csrf": csrf, **fields}, files=uploads or None
    )


def test_create_form_offers_every_mechanism_parameter_with_default_and_help(client):
    sign_in(client)
    page = client.get("/organiser/new")
    assert page.status_code == 200
    html = unescape(page.text)
    for name, klass in COMPETITION_MECHANISMS.items():
        assert f'<option value="{name}" data-kind="{klass.input_kind}"' in html
        assert f'id="params-{name}" data-mechanism="{name}"' in html
        for info in parameters_of(name):
            field = f"param-{name}-{info.name}"
            assert f'name="{field}"' in html, field
            assert info.help and info.help in html, field
            # The blank form starts on the recommended default, with its parameters.
            shown = info.default
            if name == RECOMMENDED.mechanism:
                shown = RECOMMENDED.params.get(info.name, info.default)
            if info.kind in ("float", "int") and shown not in (None, REQUIRED):
                assert f'name="{field}" type="text" value="{shown}"' in html, field
    assert 'name="param-ladder-eta" type="text" value=""' in html
    assert "eta (required)" in html
    assert '<optgroup label="Losses' in html and '<optgroup label="Metrics' in html
    kind = COMPETITION_MECHANISMS[RECOMMENDED.mechanism].input_kind
    assert f'<option value="{RECOMMENDED.mechanism}" data-kind="{kind}" selected>' in html
    assert f"A new form starts on {RECOMMENDED.label}" in html and RECOMMENDED.command in html
    assert 'type="datetime-local"' in html and '<option value="Europe/Paris">' in html
    assert '<option value="UTC" selected>' in html
    assert 'name="auto_publish" type="checkbox"' in html and 'name="ranks"' in html
    assert 'name="files" type="file" multiple' in html
    assert 'id="advice-data">{"rows": [' in html


def test_create_makes_the_competition_with_its_files_board_and_deadline(client, solution):
    csrf = sign_in(client)
    year = datetime.now(UTC).year + 2
    fields = _create_form(
        mechanism="ladder-boot",
        **{"param-ladder-boot-b": "50", "param-ladder-boot-alpha": "0.1"},
        **{"param-ladder-eta": "not read", "param-shaky-ladder-step": "2"},
        board="per-rank",
        ranks="3",
        daily_quota="none",
        total_quota="40",
        invalid_quota="7",
        n_selections="1",
        max_megabytes="120",
        deadline=f"{year}-01-15T18:30",
        zone="America/New_York",
        auto_publish="1",
    )
    files = [("train.csv", b"x,y\n1,2\n"), ("README.txt", b"hello")]
    created = _post_create(client, csrf, fields, solution.to_csv(), files)
    assert created.status_code == 201, alert(created.text)
    assert "Competition Flower challenge created" in status(created.text)
    assert "Data files: train.csv, README.txt" in status(created.text)
    assert "<h1>Flower challenge" in created.text  # the new competition's desk
    competitions = client.app.state.competitions
    info = competitions.competition("demo")
    config = info.config
    assert (config.mechanism, config.mechanism_params) == ("ladder-boot", {"alpha": 0.1, "b": 50})
    assert (config.board, config.ranks, config.daily_quota, config.total_quota) == (
        "per-rank",
        3,
        None,
        40,
    )
    assert (config.invalid_quota, config.n_selections, config.auto_publish) == (7, 1, True)
    assert config.max_bytes == 120 * 2**20
    assert info.deadline == datetime(year, 1, 15, 23, 30, tzinfo=UTC)  # EST is UTC-5
    assert (info.description, info.rules) == (fields["description"], fields["rules"])
    assert [f.name for f in competitions.files("demo")][1:] == ["README.txt", "train.csv"]


def test_create_keeps_a_parameter_left_empty_to_the_mechanisms_default(client, solution):
    csrf = sign_in(client)
    fields = _create_form(
        mechanism="shaky-ladder",
        **{"param-shaky-ladder-noise_scale": "", "param-shaky-ladder-noise": "gaussian"},
        **{"param-shaky-ladder-snap": "no", "param-shaky-ladder-max_updates": " "},
    )
    created = _post_create(client, csrf, fields, solution.to_csv())
    assert created.status_code == 201, alert(created.text)
    params = client.app.state.competitions.competition("demo").config.mechanism_params
    # The defaults left open are stored as they settle at this holdout size.
    settled = ShakyLadder(n=solution.n_public).get_params()
    pinned = {k: settled[k] for k in ShakyLadder.pinned_defaults}
    assert params == {"noise": "gaussian", "snap": False, **pinned}


FUTURE = f"{datetime.now(UTC).year + 2}-06-01T12:00"
BAD_CREATIONS = {
    "eta-missing": ({"mechanism": "ladder"}, "The Ladder needs its step eta: give a number"),
    "eta-text": (
        {"mechanism": "ladder", "param-ladder-eta": "big"},
        "The Ladder's eta must be a number, got 'big'",
    ),
    "eta-negative": ({"mechanism": "ladder", "param-ladder-eta": "-1"}, "The Ladder's eta must"),
    "b-fraction": (
        {"mechanism": "ladder-boot", "param-ladder-boot-b": "2.5"},
        "The LadderBoot's b must be a whole number, got '2.5'",
    ),
    "alpha-range": (
        {"mechanism": "significance-ladder", "param-significance-ladder-alpha": "3"},
        "The Significance Ladder's alpha must be",
    ),
    "noise-choice": (
        {"mechanism": "shaky-ladder", "param-shaky-ladder-noise": "cauchy"},
        "The Shaky Ladder's noise must be one of 'laplace', 'gaussian'",
    ),
    "baseline-shape": (
        {
            "mechanism": "bayes-boot-ladder",
            "score": "auc",
            "param-bayes-boot-ladder-baseline": "1,2",
        },
        "The BayesBoot Ladder's baseline must have shape",
    ),
    "metric-for-a-loss": (
        {"mechanism": "ladder", "score": "pearson"},
        "The Ladder scores per-sample losses",
    ),
    "loss-for-a-metric": (
        {"mechanism": "bayes-boot-ladder", "score": "zero_one"},
        "The BayesBoot Ladder scores predictions with a metric",
    ),
    "unknown-mechanism": ({"mechanism": "oracle"}, "Choose a mechanism from the list"),
    "no-competition-mechanism": ({"mechanism": "thresholdout"}, "Choose a mechanism from the list"),
    "unknown-score": ({"score": "vibes"}, "Choose a loss or a metric from the list"),
    "loss-params-json": (
        {"score": "log_loss", "score_params": "{clip: 1}"},
        "Loss parameters must be written like",
    ),
    "loss-params-unknown": (
        {"score": "log_loss", "score_params": '{"clop": 1}'},
        "The loss log_loss does not take the parameters clop",
    ),
    "loss-params-for-a-metric": (
        {"mechanism": "bayes-boot-ladder", "score": "auc", "score_params": '{"clip": 1}'},
        "Loss parameters apply to a loss",
    ),
    "deadline-past": ({"deadline": "2001-01-01T00:00"}, "is in the past: choose a later one"),
    "deadline-zone": ({"deadline": FUTURE, "zone": "Atlantis/Capital"}, "is not a time zone"),
    "auto-publish-no-deadline": ({"auto_publish": "1"}, "needs a deadline"),
    "daily-zero": ({"daily_quota": "0"}, "Submissions a day must be at least 1, got 0"),
    "ranks-text": ({"board": "per-rank", "ranks": "many"}, "Ranks must be a whole number"),
    "selections-none": (
        {"n_selections": "none"},
        "Final submissions a team selects must be a whole number",
    ),
    "max-megabytes": (
        {"max_megabytes": "lots"},
        "Largest submission file in MB must be a whole number",
    ),
    "board": ({"board": "sideways"}, "Choose a per-team or a per-rank board"),
    "slug": ({"slug": "a b/c"}, "The slug (the competition's address) is 1 to 64"),
    "title-long": ({"title": "t" * 201}, "Title is 201 characters long"),
}


@pytest.mark.parametrize(("fields", "message"), BAD_CREATIONS.values(), ids=BAD_CREATIONS.keys())
def test_create_refuses_in_a_plain_sentence_and_keeps_every_value(
    client, solution, fields, message
):
    csrf = sign_in(client)
    sent = _create_form(**fields)
    page = _post_create(client, csrf, sent, solution.to_csv())
    assert page.status_code == 422, alert(page.text)
    said = alert(page.text)
    assert message in said, said
    assert not any(word in said for word in TECHNICAL), said
    assert said.endswith(".") and "\n" not in said
    assert client.app.state.competitions.competitions() == []
    html = unescape(page.text)
    for name, value in sent.items():
        if name in ("mechanism", "score", "zone", "board", "auto_publish") or "noise" in name:
            continue  # selects and boxes: checked below
        assert f'value="{value}"' in html or f">{value}</textarea>" in html, name
    assert "Choose the solution file again" in html
    mechanism = sent["mechanism"]
    if mechanism in COMPETITION_MECHANISMS:
        kind = COMPETITION_MECHANISMS[mechanism].input_kind
        assert f'<option value="{mechanism}" data-kind="{kind}" selected>' in html
    left_out = {"thresholdout", "gaussian-thresholdout"}
    assert set(MECHANISMS) - set(COMPETITION_MECHANISMS) == left_out
    assert not any(f'<option value="{name}"' in html for name in left_out)
    if sent.get("auto_publish"):
        assert 'value="1" checked' in html


def test_create_refuses_a_bad_file_and_stores_nothing(client, solution):
    csrf = sign_in(client)
    fields = _create_form()
    for files, solution_csv, message in (
        ((), None, "Choose the solution file"),
        ((), b"id,target\n1,0\n2,1\n", "The solution has no Usage column"),
        ([("my data.csv", b"x")], solution.to_csv(), "A file name is"),
        ([("a.csv", b"x"), ("a.csv", b"y")], solution.to_csv(), "Two data files are named 'a.csv'"),
    ):
        page = _post_create(client, csrf, fields, solution_csv, files)
        assert page.status_code in (400, 422), page.status_code
        said = alert(page.text)
        assert message in said and not any(word in said for word in TECHNICAL), said
        assert client.app.state.competitions.competitions() == []
        if files:
            assert "Choose the data files again too" in page.text
    create(client, solution)
    before = state(client)
    taken = _post_create(client, csrf, fields, solution.to_csv(), [("new.csv", b"x")])
    assert taken.status_code == 409 and "already exists" in alert(taken.text)
    assert state(client) == before


def test_create_needs_the_session_and_the_csrf_value(client, solution):
    page = client.get("/organiser/new")
    assert page.status_code == 401 and 'name="next" value="/organiser/new"' in page.text
    fields = _create_form()
    assert _post_create(client, "0" * 64, fields, solution.to_csv()).status_code == 401
    sign_in(client)
    assert _post_create(client, "0" * 64, fields, solution.to_csv()).status_code == 403
    assert client.app.state.competitions.competitions() == []


def test_create_advice_rows_set_up_competitions_the_engine_accepts(tmp_path):
    competitions = Competitions.open(f"sqlite:///{tmp_path / 'advice.db'}")
    try:
        for number, row in enumerate(ADVICE):
            holdout = Solution.from_labels([0, 1] * row.n, public_fraction=0.5, random_state=0)
            assert holdout.n_public == row.n
            config = CompetitionConfig(
                score=row.score, mechanism=row.mechanism, mechanism_params=row.values()
            )
            competitions.create(f"advice-{number}", holdout, config)
            assert advice_for(row.score, row.n) == row
    finally:
        competitions.dispose()


def test_every_advice_row_shows_an_advise_command_that_runs(monkeypatch):
    """The form's "measure it yourself" line is a command the CLI accepts,
    for the very settings the row was measured with."""
    import shlex

    import ladderboard.advisor.advice as advice_module
    from ladderboard.server.organiser_advice import ADVICE, BUDGET

    class Measured(Exception):
        pass

    calls = []

    def record(**kwargs):
        calls.append(kwargs)
        raise Measured

    monkeypatch.setattr(advice_module, "advise", record)
    for row in ADVICE:
        words = shlex.split(row.command())
        assert words[:2] == ["ladderboard", "advise"]
        result = CliRunner().invoke(app, words[1:])
        assert isinstance(result.exception, Measured), (row.command(), result.output)
        assert calls[-1]["n"] == row.n and calls[-1]["k"] == BUDGET
        assert calls[-1]["score"] == row.metric
