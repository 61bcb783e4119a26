"""On a board whose releases hide the mechanism's decision (a fresh estimate
of the team's best at every file: LadderBoot, BayesBootLadderBoot), nothing a
team can read before the private board is published may depend on whether
its file was accepted: the answer to the submission, its list of
submissions, the boards and its pages, compared between a history whose last
file was accepted and one whose last file was not. Numbers are masked: the
releases are fresh draws whatever the decision, so they are what the
mechanism shows, not a leak of the platform's."""

from __future__ import annotations

import re

import pytest
from server_helpers import add_team, bearer, create, flipped, organiser, submit

from ladderboard.mechanisms import COMPETITION_MECHANISMS

HIDING = sorted(name for name, k in COMPETITION_MECHANISMS.items() if k.release_hides_decision)


def _masked(text: str, slug: str) -> str:
    """``text`` with its numbers, times and the competition's name left out,
    and the chart's axis (its grid lines and tick labels, whose number
    follows the range of the released scores, random under a noisy board);
    the chart's points and line stay compared."""
    text = text.replace(slug, "SLUG")
    text = re.sub(r'<line class="grid"[^>]*/>', "", text)
    text = re.sub(r'<text class="tick"[^>]*>[^<]*</text>', "", text)
    text = re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.+Z UTC-]*", "TIME", text)
    text = re.sub(r"name=\"csrf\" value=\"[^\"]*\"", "CSRF", text)
    return re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "#", text)


def _seen(client, slug: str, token: str, last: bytes) -> list[str]:
    """Everything the team reads after sending ``last``, masked."""
    answer = submit(client, token, last, slug=slug)
    assert answer.status_code == 201, answer.text
    pages = [
        answer.text,
        client.get(f"/api/competitions/{slug}/submissions", headers=bearer(token)).text,
        client.get(f"/api/competitions/{slug}/leaderboard").text,
        client.get(f"/api/competitions/{slug}/leaderboard.csv").text,
        client.get(f"/c/{slug}/leaderboard").text,
    ]
    signed_in = client.post(f"/c/{slug}/team", data={"token": token})
    assert signed_in.status_code == 200, signed_in.text
    pages.append(signed_in.text)
    return [_masked(page, slug) for page in pages]


def _decisions(client, slug: str) -> list[bool]:
    """The mechanism's decisions, as stored for the organiser."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from ladderboard.store import CompetitionRow, SubmissionRow

    with Session(client.app.state.competitions.engine) as session:
        return list(
            session.scalars(
                select(SubmissionRow.improved)
                .join(CompetitionRow, CompetitionRow.id == SubmissionRow.competition_id)
                .where(CompetitionRow.slug == slug)
                .order_by(SubmissionRow.id)
            )
        )


@pytest.mark.parametrize("mechanism", HIDING)
def test_nothing_a_team_reads_tells_whether_its_file_was_accepted(client, solution, mechanism):
    assert HIDING, "no registered mechanism hides its decisions"
    score = "accuracy" if COMPETITION_MECHANISMS[mechanism].input_kind != "losses" else "zero_one"
    seen, tokens = {}, {}
    for slug, last in (
        ("case-a", flipped(solution, 0.0, 2)),
        ("case-b", flipped(solution, 0.5, 3)),
    ):
        create(client, solution, slug=slug, mechanism=mechanism, score=score, n_selections=1)
        token = client.post(
            f"/api/competitions/{slug}/teams", json={"name": "alpha"}, headers=organiser()
        ).json()["token"]
        assert submit(client, token, flipped(solution, 0.2, 1), slug=slug).status_code == 201
        seen[slug] = _seen(client, slug, token, last)
        tokens[slug] = token
    assert _decisions(client, "case-a") == [True, True]
    assert _decisions(client, "case-b") == [True, False]
    for what, a, b in zip(
        ("answer", "submissions", "board JSON", "board CSV", "board page", "My team"),
        seen["case-a"],
        seen["case-b"],
        strict=True,
    ):
        assert a == b, f"the {what} differs between an accepted and a refused file"
    # Closed, not yet published: the decisions are still the organiser's.
    closed = {}
    for slug, token in tokens.items():
        client.app.state.competitions.close(slug)
        mine = client.get(f"/api/competitions/{slug}/submissions", headers=bearer(token)).text
        page = client.get(f"/c/{slug}/team").text
        closed[slug] = [_masked(mine, slug), _masked(page, slug)]
    assert closed["case-a"] == closed["case-b"]


def test_teams_with_equal_scores_are_ordered_without_the_decision(client, solution):
    """LadderBoot releases rounded to 0.5 make every good file's release 0.0:
    two teams tie, and their order must not say whether the leader's last
    file was taken (ordering a tie by the time of the file held as best
    would)."""
    orders = {}
    for slug, last in (("case-a", 0.0), ("case-b", 0.5)):
        create(
            client,
            solution,
            slug=slug,
            mechanism="ladder-boot",
            mechanism_params='{"precision": 0.5}',
        )
        a, b = add_team(client, "a", slug), add_team(client, "b", slug)
        assert submit(client, a, flipped(solution, 0.2, 1), slug=slug).status_code == 201
        assert submit(client, b, flipped(solution, 0.15, 2), slug=slug).status_code == 201
        assert submit(client, a, flipped(solution, last, 3), slug=slug).status_code == 201
        rows = client.get(f"/api/competitions/{slug}/leaderboard").json()["rows"]
        assert {row["score"] for row in rows} == {0.0}
        orders[slug] = [row["team"] for row in rows]
    assert _decisions(client, "case-a")[-1] and not _decisions(client, "case-b")[-1]
    assert orders["case-a"] == orders["case-b"]


@pytest.mark.parametrize(
    ("mechanism", "params"),
    [
        ("parameter-free-ladder", {}),
        ("ladder-boot", {"b": 100}),
        ("bayes-boot-ladder-boot", {}),
    ],
)
def test_a_team_that_sends_random_files_after_a_model_is_ranked_on_the_model(
    client, solution, mechanism, params
):
    """A good model, then four files of random guesses, and no selection: no
    answer to a random file says it improved, and the final ranking takes the
    model, whose private score the published board shows for the team."""
    import json

    score = "accuracy" if COMPETITION_MECHANISMS[mechanism].input_kind != "losses" else "zero_one"
    create(
        client,
        solution,
        mechanism=mechanism,
        mechanism_params=json.dumps(params),
        score=score,
        n_selections=2,
    )
    token = client.post(
        "/api/competitions/demo/teams", json={"name": "alpha"}, headers=organiser()
    ).json()["token"]
    model = submit(client, token, flipped(solution, 0.05, 1))
    assert model.status_code == 201, model.text
    for seed in range(4):
        answer = submit(client, token, flipped(solution, 0.5, 10 + seed)).json()
        assert "better than" not in answer["explanation"], answer["explanation"]
        assert answer["score_of"] == "team"
    store = client.app.state.competitions
    store.close("demo")
    store.publish("demo")
    own = client.get("/api/competitions/demo/submissions", headers=bearer(token)).json()
    assert own[0]["final"] and own[0]["best"]
    private = client.get("/api/competitions/demo/leaderboard", params={"board": "private"}).json()
    (row,) = private["rows"]
    assert row["score"] == own[0]["private_score"]
