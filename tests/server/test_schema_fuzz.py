"""Schemathesis against the OpenAPI schema: generated requests never get a
5xx, and every answer is one the schema documents.

Every operation runs on both stores (SQLite and PostgreSQL, through the
``database_url`` fixture; without PostgreSQL that half is skipped, or fails
under ``CI=true``) and as
four callers: the organiser, a team (the token of the team of the competition
in the path), a person (the personal token of an account that is a member of
every competition's team ``a``) and anonymous (no ``Authorization``). Each (store, caller) starts
from a fresh server holding ``demo`` (per-team, no quotas), ``rank`` (per-rank),
``closing`` (open; the only target of the close with ``closed``) and
``closed``, each with a team ``a`` and one scored submission.

The checks (:data:`CHECKS`) fail on a server error (status >= 500, or an
exception escaping the app) and on any disagreement between an answer and
the schema: a status the operation does not document
(``status_code_conformance``), a content type it does not document
(``content_type_conformance``), a documented header missing
(``response_headers_conformance``) or a body its schema does not admit
(``response_schema_conformance``). Schemathesis' other default checks are
left out: they fail on the schema's looseness about requests, not on
answers (seen with every default check on): ``ignored_auth`` and
``missing_required_header`` (the bearer is declared on public reads, which
need none), ``positive_data_acceptance`` (plain string form fields such as
``slug``, ``score``, ``deadline`` or ``*_params`` are validated by the
engine, not the schema) and ``negative_data_rejection`` (extra form fields
and query parameters are ignored). ``unsupported_method`` is left out too:
the ``Allow`` of a 405 is checked on every path with more than one method by
test_errors.

Hostile input: schemathesis' defaults are set explicitly (``allow_x00``, codec
``utf-8``: NUL and any code point in bodies, queries and path parameters).
Random values seldom pass the first validation, so hooks send about two
thirds of the cases where the engine works: a seeded ``slug`` in the path (or
percent-encoded hostile text), a valid solution, score and mechanism, a fresh
valid predictions file, real submission ids, around one hostile field (NUL,
control and private-use characters, over-long text, deep or odd JSON in
``*_params``, extreme deadlines, quotas and ids).

Fast by default: ``FAST_EXAMPLES`` per operation, derandomised. The heavy
variant is marked ``slow`` and runs only when the variable is set, in place
of the fast one (CI sets it)::

    LADDERBOARD_FUZZ_EXAMPLES=300 pytest -m slow tests/server/test_schema_fuzz.py
"""

from __future__ import annotations

import itertools
import json
import os
from datetime import datetime
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from server_helpers import ADMIN, LABELS, bearer, organiser, predictions

from ladderboard.files.solution import Solution
from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

FAST_EXAMPLES = 12
HEAVY_EXAMPLES = int(os.environ.get("LADDERBOARD_FUZZ_EXAMPLES") or 0)

SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
COMPETITIONS = {"demo": "per-team", "rank": "per-rank", "closing": "per-team", "closed": "per-team"}
PAIRS = [  # (score, mechanism) pairs the engine accepts
    ("zero_one", "parameter-free-ladder"),
    ("zero_one", "ladder"),
    ("squared", "ladder-boot"),
    ("log_loss", "shaky-ladder"),
    ("accuracy", "bayes-boot-ladder"),
    ("auc", "metric-full-disclosure"),
]
PARAM_NAMES = ["eta", "alpha", "b", "B", "precision", "noise_scale", "step", "noise"]
PARAM_NAMES += ["max_updates", "snap", "po_threshold", "baseline", "chunk_bytes", "clip"]


# ------------------------------------------------------------------ server
@pytest.fixture
def server(database_url):
    """A fresh app over ``database_url`` holding ``COMPETITIONS``: ``(app, seeds)``."""
    app = create_app(
        Settings(admin_token=ADMIN, database_url=database_url, rate_limit_per_minute=0)
    )
    try:
        yield app, _seed(app)
    finally:
        app.state.competitions.engine.dispose()


def _seed(app) -> dict:
    seeds = {"tokens": {}, "submission_ids": []}
    with TestClient(app) as client:
        accounts = app.state.competitions.accounts
        person = accounts.create("p", email="p@example.org")
        seeds["person"] = accounts.create_token(person.id, "fuzz")[1]
        for n, (slug, board) in enumerate(COMPETITIONS.items()):
            created = client.post(
                "/api/competitions",
                data={"slug": slug, "score": "zero_one", "mechanism": "parameter-free-ladder",
                      "board": board, "daily_quota": "none", "invalid_quota": "none"},
                files={"solution": ("solution.csv", SOLUTION.to_csv(), "text/csv")},
                headers=organiser(),
            )  # fmt: skip
            assert created.status_code == 201, created.text
            added = client.post(
                f"/api/competitions/{slug}/teams", json={"name": "a"}, headers=organiser()
            )
            assert added.status_code == 201, added.text
            seeds["tokens"][slug] = token = added.json()["token"]
            accounts.add_member(slug, "a", person.id)  # the person's token acts as team a
            sent = client.post(
                f"/api/competitions/{slug}/submissions",
                files={"file": ("p.csv", predictions(SOLUTION, n), "text/csv")},
                headers=bearer(token),
            )
            assert sent.status_code == 201, sent.text
            seeds["submission_ids"].append(sent.json()["id"])
        closed = client.post("/api/competitions/closed/close", headers=organiser())
        assert closed.status_code == 200, closed.text
    return seeds


@pytest.fixture
def api_schema(server, request):
    app, seeds = server
    # schemathesis 4.32's lazy schemas rename ``node._nodeid``, which pytest 9 dropped.
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    generation = schema.config.generation
    generation.update(allow_x00=True, codec="utf-8")  # the defaults, whatever a toml says
    _install_hooks(schema, seeds)
    return schema


# ------------------------------------------------------- hostile values
def _nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    if kind == "open":  # unterminated: the parser recurses before it fails
        return "[" * depth
    return '{"a":' * depth + "1" + "}" * depth


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _pick(*options):
    """One of ``options``, chosen uniformly (``st.one_of`` drops repeated strategies)."""
    return st.sampled_from(options).flatmap(lambda option: option)


_counter = itertools.count()
FRESH = st.builds(next, st.just(_counter))  # never repeats, so no 409 hides what follows
ODD = "\x00\x01\x1b\x7f\x85\xa0\u2028\u202e\ufeff\ue000\uffff\U0010ffff'\"\\%=\r\n\t "
TEXT = _pick(
    st.text(max_size=20).map(lambda s: s + "\x00"),
    st.tuples(st.text(max_size=20), st.sampled_from(ODD), st.text(max_size=20)).map("".join),
    st.text(st.sampled_from(ODD) | st.characters(codec="utf-8"), min_size=1, max_size=50),
    st.text(),
    st.integers(150, 3000).map(lambda n: "x" * n),
)
SLUGS = st.one_of(
    FRESH.map("fuzz-{}".format),
    st.text(st.characters(categories=["L", "N"]) | st.sampled_from("-_"), min_size=1, max_size=70),
    st.sampled_from(list(COMPETITIONS)),
    TEXT,
)
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), TEXT,
    st.sampled_from([2**63, -(2**63) - 1, 10**400, 1e308, -0.0]),
)  # fmt: skip
PARAMS_JSON = _pick(  # mechanism_params and score_params
    st.builds(
        _nested,
        st.sampled_from([500, 900, 1000, 3000, 100_000]) | st.integers(1, 100_000),
        st.sampled_from(["dict", "list", "open"]),
    ),
    st.sampled_from(
        ['{"eta": NaN}', '{"eta": Infinity}', '{"alpha": -Infinity}', '{"b": 1e400}',
         '{"B": 100000000000000000000}', '{"precision": 0}', '{"clip": [0.5, 0.5]}',
         '{"clip": [1, 0]}', '{"noise": "\\u0000"}', '{"\\u0000": 1}', '{"eta": 1e-320}']
    ),
    st.dictionaries(st.sampled_from(PARAM_NAMES) | TEXT, JSON_SCALARS, max_size=3).map(
        json.dumps
    ),
    st.just("{}"),
)  # fmt: skip
DEADLINES = _pick(
    st.sampled_from(
        ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00Z",
         "9999-12-31T23:59:59.999999+00:00", "2999-01-01T00:00:00+00:00", "2000-01-01T00:00"]
    ),
    st.datetimes(timezones=st.timezones()).map(datetime.isoformat),
    TEXT,
)  # fmt: skip
BIG_INTS = st.integers(-(2**70), 2**70)
INTS = BIG_INTS.map(str) | st.sampled_from(
    ["5", "none", "0", "-1", str(2**31), str(2**63), "1" * 5000, "1_000", " 7 "]
)
CREATE_EXTRAS = {  # the optional fields of a new competition
    "title": TEXT,
    "description": TEXT,
    "mechanism_params": PARAMS_JSON,
    "score_params": PARAMS_JSON,
    "daily_quota": INTS,
    "total_quota": INTS,
    "invalid_quota": INTS,
    "deadline": DEADLINES,
    "n_selections": INTS,
    "max_bytes": INTS,
    "board": st.sampled_from(["per-team", "per-rank"]),
}


def _mutated_csv(data: bytes):
    """A valid CSV, or one with a line replaced by hostile text."""
    lines = data.decode().splitlines()
    return st.one_of(
        st.just(data),
        st.tuples(st.integers(0, len(lines) - 1), TEXT).map(
            lambda t: _encoded("\n".join([*lines[: t[0]], t[1], *lines[t[0] + 1 :]]))
        ),
    )


def _one_or_many(extras: dict):
    """One hostile field (the others absent, so that it reaches the store), or any subset."""
    one = st.sampled_from(sorted(extras)).flatmap(lambda k: extras[k].map(lambda v: {k: v}))
    return _pick(one, one, st.fixed_dictionaries({}, optional=extras))


def _install_hooks(schema, seeds) -> None:
    """Hooks that send most cases where the engine does real work."""

    def route(ctx) -> tuple[str, str]:
        return ctx.operation.method.upper(), ctx.operation.path

    @schema.hook
    def flatmap_path_parameters(ctx, path_parameters):
        if not path_parameters or "slug" not in path_parameters:
            return st.just(path_parameters)
        # Only ``closing`` and ``closed`` get closed: ``demo`` and ``rank`` stay open.
        ours = st.sampled_from(
            ["closing", "closed"] if route(ctx)[1].endswith("/close") else list(COMPETITIONS)
        )
        hostile = TEXT.filter(bool).map(lambda s: quote(_encoded(s), safe=""))
        slug = _pick(ours, ours, ours, hostile, st.just(path_parameters["slug"]))
        if "number" not in path_parameters:
            return slug.map(lambda value: {**path_parameters, "slug": value})
        # A submission's number: mostly one the team has (each seeded team made one).
        number = _pick(st.just(1), st.just(1), BIG_INTS)
        return st.tuples(slug, number).map(
            lambda pair: {**path_parameters, "slug": pair[0], "number": pair[1]}
        )

    core = st.fixed_dictionaries(
        {"slug": SLUGS, "pair": st.sampled_from(PAIRS), "solution": _mutated_csv(SOLUTION.to_csv())}
    )
    create = st.tuples(core, _one_or_many(CREATE_EXTRAS)).map(
        lambda t: {"score": t[0]["pair"][0], "mechanism": t[0]["pair"][1],
                   "slug": t[0]["slug"], "solution": t[0]["solution"], **t[1]}
    )  # fmt: skip
    bodies = {  # each replaces the generated body two times out of three
        ("POST", "/api/competitions"): create,
        ("POST", "/api/competitions/{slug}/submissions"): st.fixed_dictionaries(
            {"file": FRESH.map(lambda seed: predictions(SOLUTION, seed)).flatmap(_mutated_csv)},
            optional={"message": TEXT},
        ),
        ("PUT", "/api/competitions/{slug}/selection"): st.fixed_dictionaries(
            {"submission_ids": st.lists(st.sampled_from(seeds["submission_ids"]) | BIG_INTS)}
        ),
        ("POST", "/api/competitions/{slug}/teams"): st.fixed_dictionaries(
            {"name": TEXT | st.tuples(TEXT, FRESH).map(lambda t: f"{t[0][:90]}{t[1]}")}
        ),
    }

    # A submission's body is a form (a dict) or the file itself (text/csv, gzip).
    file_body = FRESH.map(lambda seed: predictions(SOLUTION, seed)).flatmap(_mutated_csv)

    @schema.hook
    def flatmap_body(ctx, body):
        ours = bodies.get(route(ctx))
        if ours is None:
            return st.just(body)
        if route(ctx)[1].endswith("/submissions") and not isinstance(body, dict):
            ours = file_body
        return _pick(ours, ours, st.just(body))


# -------------------------------------------------------------------- test
lazy = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture(params=["organiser", "team", "person", "anonymous"])
def caller(request) -> str:
    return request.param


def call_and_check(case, caller: str, server):
    """Send ``case`` as ``caller`` (replacing any generated token); fail on a
    5xx or an answer the schema does not document."""
    _, seeds = server
    if case.headers:
        case.headers.pop("Authorization", None)
    if caller == "organiser":
        headers = organiser()
    elif caller == "team":
        slug = (case.path_parameters or {}).get("slug")
        headers = bearer(seeds["tokens"].get(slug, seeds["tokens"]["demo"]))
    elif caller == "person":  # an account's personal token, a member of every team a
        headers = bearer(seeds["person"])
    else:
        headers = {}
    return case.call_and_validate(headers=headers, checks=CHECKS)


_SETTINGS = {"deadline": None, "suppress_health_check": list(HealthCheck)}


@pytest.mark.skipif(bool(HEAVY_EXAMPLES), reason="the heavy variant runs in its place")
@lazy.parametrize()
@pytest.mark.usefixtures("caller")  # parametrises the test: the wrapper hides its arguments
@settings(max_examples=FAST_EXAMPLES, derandomize=True, **_SETTINGS)
def test_no_server_errors(case, caller, server):
    call_and_check(case, caller, server)


@pytest.mark.slow
@pytest.mark.skipif(not HEAVY_EXAMPLES, reason="set LADDERBOARD_FUZZ_EXAMPLES to run")
@lazy.parametrize()
@pytest.mark.usefixtures("caller")
@settings(max_examples=max(HEAVY_EXAMPLES, 1), print_blob=True, **_SETTINGS)
def test_no_server_errors_heavy(case, caller, server):
    call_and_check(case, caller, server)
