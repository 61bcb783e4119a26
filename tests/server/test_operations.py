"""What an operator watches: ``/livez``, ``/readyz``, the Prometheus
``/metrics``, whose counts must be those of what was sent, sent at once,
and the JSON log lines of ``ladderboard serve``."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import pytest
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import add_team, bearer, create, predictions, submit

from ladderboard.store import make_engine
from ladderboard.store.database import downgrade

METRICS_TOKEN = "metrics-token-for-the-tests-9f8e7d6c5b4a"
SUBMISSIONS = "/api/competitions/{slug}/submissions"


def scrape(client) -> dict[tuple[str, tuple], float]:
    """Every sample of ``/metrics``, by name and sorted labels."""
    response = client.get("/metrics", headers=bearer(METRICS_TOKEN))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_livez_and_readyz_answer_and_readyz_refuses_a_store_at_another_schema(
    make_client, database_url
):
    client = make_client()
    assert client.get("/livez").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ok", "database": "ok"}
    engine = make_engine(database_url)
    downgrade(engine, "-1")  # a migration on its way, by another host say
    engine.dispose()
    refused = client.get("/readyz")
    assert refused.status_code == 503
    assert refused.json()["error"] == "store_not_ready"
    # Said without the store's address.
    assert "sqlite" not in refused.text and "postgresql" not in refused.text
    assert client.get("/livez").status_code == 200
    assert client.get("/healthz").status_code == 200  # the database still answers


def test_metrics_are_off_without_their_token_and_ask_for_it(make_client):
    assert make_client().get("/metrics").status_code == 404
    client = make_client(metrics_token=METRICS_TOKEN)
    for headers in ({}, bearer("not-the-metrics-token"), bearer(METRICS_TOKEN + "x")):
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401 and refused.json()["error"] == "unauthorized"
    assert client.get("/metrics", headers=bearer(METRICS_TOKEN)).status_code == 200


def test_metrics_count_what_was_sent_at_once(make_client, solution):
    """Eight threads send files of two teams with a daily quota of 8: first
    12 distinct ones (6 each), all scored; then at once 6 that owls sends
    again (duplicates: refused, and free), 6 new ones of bats (2 scored, 4
    past its quota) and 6 with unknown tokens. The scrape counts exactly
    these, by outcome, by code and by route."""
    client = make_client(metrics_token=METRICS_TOKEN, auth_failures_per_minute=0)
    create(client, solution, daily_quota=8)
    owls, bats = add_team(client, "owls"), add_team(client, "bats")
    seeds = itertools.count()
    first = {team: [predictions(solution, next(seeds)) for _ in range(6)] for team in (owls, bats)}
    before = scrape(client)

    def send(job):
        token, content = job
        return submit(client, token, content).status_code

    fresh = [(token, content) for token, files in first.items() for content in files]
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(send, fresh))
    assert statuses == [201] * 12
    resent = [(owls, content) for content in first[owls]]
    over = [(bats, predictions(solution, next(seeds))) for _ in range(6)]
    strangers = [(f"unknown-token-{k}", predictions(solution, 0)) for k in range(6)]
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(send, resent + over + strangers))
    assert statuses[:6] == [409] * 6 and statuses[12:] == [401] * 6
    assert sorted(statuses[6:12]) == [201] * 2 + [429] * 4
    after = scrape(client)

    def grew(name, **labels):
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    outcomes = {"scored": 14, "duplicate": 6, "quota": 4, "unauthorized": 6}
    for outcome, count in outcomes.items():
        assert grew("ladderboard_submissions_total", outcome=outcome) == count, outcome
    for code, count in (("duplicate", 6), ("quota", 4), ("unauthorized", 6)):
        assert grew("ladderboard_refusals_total", code=code) == count, code
    for status, count in (("201", 14), ("409", 6), ("429", 4), ("401", 6)):
        labels = {"method": "POST", "route": SUBMISSIONS, "status": status}
        assert grew("ladderboard_http_requests_total", **labels) == count, status
    # Every file admitted to a scoring slot was timed: the scored, the resent,
    # and those of bats' past its quota that passed the admission before the
    # others were stored (the lock refuses them: how many is the race's).
    timed = grew("ladderboard_scoring_seconds_count")
    assert 20 <= timed <= 24
    assert grew("ladderboard_scoring_slot_wait_seconds_count") == timed
    assert grew("ladderboard_http_request_seconds_count", route=SUBMISSIONS) == 30


def test_paths_and_methods_the_client_chooses_add_no_series(make_client, solution):
    """Scans, team names with slashes under a ``{name:path}`` route, and
    made-up methods leave the set of series as it was after the first of
    each kind; a refusal on the Submit page counts by its code."""
    client = make_client(metrics_token=METRICS_TOKEN, auth_failures_per_minute=0)
    create(client, solution)
    token = add_team(client, "owls")

    def probe(k: int) -> None:
        client.get(f"/no/such/page/{k}")
        client.get(f"/api/competitions/demo/teams/a{k}/b/c{k}/history", headers=bearer(token))
        client.request(f"BREW{k}", "/")
        client.get(f"/static/none-{k}.css")

    probe(0)
    scrape(client)  # the scrape's own series
    series = set(scrape(client))
    for k in range(1, 6):
        probe(k)
    grown = {(name, labels) for name, labels in scrape(client)} - series
    assert not grown, grown
    routes = {dict(labels).get("route") for _, labels in series}
    assert {"unmatched", "/static", "/api/competitions/{slug}/teams/{name:path}/history"} <= routes
    methods = {dict(labels).get("method") for _, labels in series}
    assert "other" in methods and not any(m and m.startswith("BREW") for m in methods)

    before = scrape(client)
    page = client.post(
        "/c/demo/submit",
        data={"token": "not-a-token-of-this-server"},
        files={"file": ("p.csv", predictions(solution, 1), "text/csv")},
    )
    assert page.status_code == 401 and "text/html" in page.headers["content-type"]
    key = ("ladderboard_submissions_total", (("outcome", "unauthorized"),))
    assert scrape(client).get(key, 0.0) - before.get(key, 0.0) == 1


@pytest.mark.slow
def test_metrics_add_up_the_workers_in_multiprocess_mode(tmp_path):
    """With ``PROMETHEUS_MULTIPROC_DIR`` set, each worker process writes its
    counts beside the others', and any worker's ``/metrics`` adds them up."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "metrics"
    folder.mkdir()
    env = os.environ | {"PROMETHEUS_MULTIPROC_DIR": str(folder)}
    worker = (
        "from ladderboard.server.metrics import Metrics\n"
        "m = Metrics()\n"
        "m.submissions.labels('scored').inc({n})\n"
        "print(m.exposition()[0].decode())\n"
    )
    outputs = [
        subprocess.run(
            [sys.executable, "-c", worker.format(n=n)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for n in (2, 3)
    ]
    totals = [
        sample.value
        for output in outputs
        for family in text_string_to_metric_families(output)
        for sample in family.samples
        if sample.name == "ladderboard_submissions_total" and sample.labels["outcome"] == "scored"
    ]
    assert totals == [2.0, 5.0]  # the second worker's scrape holds the first's counts too


@pytest.mark.slow
def test_serve_writes_json_lines_with_the_request_id_and_no_secret(tmp_path, solution):
    """``ladderboard serve`` with LADDERBOARD_LOG_FORMAT=json: every line it
    writes is a JSON object; a submission's line has the id the answer gave
    back, its route template, status, competition and team; and neither the
    team's token, nor the file's content, nor a query string is logged."""
    import json
    import os
    import socket
    import subprocess
    import sys
    import time

    import httpx2
    from server_helpers import ADMIN, organiser

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"sqlite:///{tmp_path / 'store.db'}"
    env = os.environ | {
        "LADDERBOARD_ADMIN_TOKEN": ADMIN,
        "LADDERBOARD_LOG_FORMAT": "json",
        "LADDERBOARD_RATE_LIMIT_PER_MINUTE": "0",
    }
    subprocess.run(
        [sys.executable, "-m", "ladderboard", "init", "--db", url], env=env, check=True,
        capture_output=True,
    )  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "ladderboard", "serve", "--db", url, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx2.Client(base_url=base, timeout=30) as client:
            for _ in range(300):
                try:
                    if client.get("/livez").status_code == 200:
                        break
                except httpx2.TransportError:
                    time.sleep(0.1)
            create(client, solution)
            token = add_team(client, "owls")
            content = predictions(solution, 0)
            sent = submit(client, token, content, params={"code": "secret-invitation-code"})
            assert sent.status_code == 201, sent.text
            request_id = sent.headers["x-request-id"]
            given = client.get("/livez", headers={"X-Request-ID": "proxy-id-42"})
            assert given.headers["x-request-id"] == "proxy-id-42"
            assert client.get("/api/competitions", headers=organiser()).status_code == 200
    finally:
        server.terminate()
        _, log = server.communicate(timeout=30)
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    submission = next(line for line in lines if line.get("request_id") == request_id)
    assert submission["route"] == "/api/competitions/{slug}/submissions"
    assert (submission["status"], submission["competition"], submission["team"]) == (
        201,
        "demo",
        "owls",
    )
    assert any(line.get("request_id") == "proxy-id-42" for line in lines)
    assert token not in log and ADMIN not in log and "secret-invitation-code" not in log
    assert content.decode().splitlines()[1] not in log
