"""Two sides side by side, one submission to each in turn: what a change to
the server costs or saves over HTTP, or what HTTP costs over the engine, in
the same run.

A side is a server (``ladderboard serve``'s app from a source tree:
``--a-src`` / ``--b-src``, the ``src`` folder of a checkout, say a ``git
worktree`` of an earlier commit; by default this checkout's), sent the file
itself or, with ``--a-form`` / ``--b-form``, a multipart form, with the
per-token rate limit of ``--a-rate-limit`` / ``--b-rate-limit`` a minute (0,
the default here, turns it off; a served site's default is 60); or, with
``--a-engine``, the engine alone (``Competitions.submit`` in this process,
what the server calls once a submission is admitted). Each side has a
database of its own: a SQLite file, or with ``--a-pg`` / ``--b-pg`` a new
PostgreSQL database on ``--pg``. One client sends a submission to each side
in turn (the first of a turn rotating), each a new file, so that the drift of
a shared machine falls on every side alike; it prints each side's median and
B against A, beside the goal when A is the engine and B a server (HTTP at
most 1.5 × the engine at 1e4 rows, 1.3 × at 1e5). With ``--floor`` a third
side joins the turns: a bare ASGI app on the same uvicorn (httptools and
uvloop when installed, as ``ladderboard serve`` runs), which receives the
body and answers a short JSON: what any server on this stack pays to move
the request and its answer, of which the rest of B's time over A is ours.

    python benchmarks/bench_http_ab.py --a-engine --floor         # HTTP over the engine
    python benchmarks/bench_http_ab.py --a-engine --a-pg --b-pg --pg postgresql+psycopg://…
    git worktree add /tmp/old <commit>
    python benchmarks/bench_http_ab.py --a-src /tmp/old/src [--sizes 10000 100000] [--count 80]
    python benchmarks/bench_http_ab.py --a-form                   # a form against the file
    python benchmarks/bench_http_ab.py --b-rate-limit 1000000     # what the token limit costs

Loopback only; every server it starts is stopped, every database it creates
is dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from starlette.types import Receive, Scope, Send

from ladderboard.client import Client
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer, free_port
from load_http import SLUG, Request, build_request, config, fresh_database, make_files

HERE = Path(__file__).resolve().parents[1] / "src"
WARM = 4  # submissions of each side not counted
GOALS = {10_000: 1.5, 100_000: 1.3}  # HTTP over the engine, one client


@dataclass(frozen=True)
class Side:
    """What one side is: the engine, or a server from ``src``."""

    src: Path
    form: bool
    engine: bool
    pg: bool
    rate_limit: int

    def describe(self) -> str:
        store = "PostgreSQL" if self.pg else "SQLite"
        if self.engine:
            return f"the engine alone in this process, {store}"
        body = "multipart forms" if self.form else "the file as the body"
        limit = f"token limit {self.rate_limit}/min" if self.rate_limit else "no token limit"
        return f"a server from {self.src}, {store}, {body}, {limit}"


@contextlib.contextmanager
def python_path(src: Path) -> Iterator[None]:
    """``PYTHONPATH`` set to ``src`` while a server starts (it inherits it)."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(src)
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def _sender(
    stack: contextlib.ExitStack, side: Side, url: str, solution: Solution, files: list[bytes]
) -> Callable[[int], None]:
    """A function sending submission ``j`` (of ``files``) to ``side``."""
    if side.engine:
        store = Competitions.open(url)
        stack.callback(store.dispose)
        store.create(SLUG, solution, config())
        store.add_team(SLUG, "team")

        def engine(j: int) -> None:
            store.submit(SLUG, "team", files[j], idempotency_key=f"k{j}")

        return engine
    own_code = side.src == HERE
    if not own_code:
        # Another checkout's store is migrated by its own code: this one's
        # migrations may run past the revisions that code knows.
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"from ladderboard.engine import migrate_store; migrate_store({url!r})",
            ],
            env=os.environ | {"PYTHONPATH": str(side.src)},
            check=True,
        )
    with python_path(side.src):
        server = stack.enter_context(
            LocalServer(url, rate_limit_per_minute=side.rate_limit, migrate=own_code)
        )
    organiser = Client(server.url, server.admin_token, timeout=120)
    organiser.create_competition(
        SLUG, solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder",
        daily_quota="none", invalid_quota="none",
    )  # fmt: skip
    token = organiser.add_team(SLUG, "team")["token"]
    organiser.close_connection()
    address = urlsplit(server.url)
    connection = HTTPConnection(address.hostname, address.port, timeout=120)
    stack.callback(connection.close)
    requests = [build_request(token, f"k{j}", f, form=side.form) for j, f in enumerate(files)]
    return _poster(connection, requests)


async def _bare_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Receive the whole body, answer 201 with its size: the floor."""
    if scope["type"] != "http":
        return
    size, more = 0, True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    body = f'{{"id": 1, "bytes": {size}}}'.encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 201, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _serve_bare(port: int) -> None:
    import uvicorn

    uvicorn.run(
        _bare_app, host="127.0.0.1", port=port, lifespan="off", log_level="warning",
        access_log=False,
    )  # fmt: skip


def _floor(stack: contextlib.ExitStack, files: list[bytes]) -> Callable[[int], None]:
    """A function sending submission ``j`` to a bare app served by uvicorn."""
    port = free_port()
    process = multiprocessing.get_context("spawn").Process(target=_serve_bare, args=(port,))
    process.start()
    stack.callback(process.join, 30)
    stack.callback(process.terminate)
    deadline = time.monotonic() + 60
    while True:
        connection = HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            connection.connect()
            break
        except ConnectionRefusedError:
            connection.close()
            if time.monotonic() > deadline or not process.is_alive():
                raise RuntimeError("the bare app did not start") from None
            time.sleep(0.1)
    stack.callback(connection.close)
    requests = [build_request("token", f"k{j}", f) for j, f in enumerate(files)]
    return _poster(connection, requests)


def _poster(connection: HTTPConnection, requests: list[Request]) -> Callable[[int], None]:
    path = f"/api/competitions/{SLUG}/submissions"

    def post(j: int) -> None:
        request = requests[j]
        connection.request("POST", path, body=request.body, headers=request.headers)
        answer = connection.getresponse()
        text = answer.read()
        if answer.status != 201:
            raise AssertionError(f"{answer.status} {text[:300]!r}")

    return post


def side_ms(
    n: int, count: int, sides: list[Side], floor: bool, pg: str | None, folder: Path
) -> list[float]:
    """The median milliseconds of each side's submissions (then the
    floor's), one to each in turn, the first of each turn rotating."""
    rng = np.random.default_rng(n)
    solution = Solution.from_labels(rng.integers(0, 2, n), public_fraction=0.5, random_state=0)
    files = make_files(solution, count, seed=n)
    with contextlib.ExitStack() as stack:
        senders = []
        for side in sides:
            url = stack.enter_context(fresh_database(pg if side.pg else None, folder))
            senders.append(_sender(stack, side, url, solution, files))
        if floor:
            senders.append(_floor(stack, files))
        times: list[list[float]] = [[] for _ in senders]
        for j in range(count):
            for k in range(len(senders)):
                i = (j + k) % len(senders)
                start = time.perf_counter()
                senders[i](j)
                times[i].append(time.perf_counter() - start)
    return [1e3 * statistics.median(t[WARM:]) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", help="A PostgreSQL URL whose server may create databases.")
    for name in "ab":
        side = name.upper()
        parser.add_argument(f"--{name}-src", type=Path, default=HERE, help=f"{side}'s source tree.")
        parser.add_argument(f"--{name}-form", action="store_true", help=f"{side} is sent forms.")
        parser.add_argument(f"--{name}-pg", action="store_true", help=f"{side} is on --pg.")
        parser.add_argument(
            f"--{name}-rate-limit", type=int, default=0, metavar="N",
            help=f"{side}'s per-token limit a minute (0: off).",
        )  # fmt: skip
    parser.add_argument("--a-engine", action="store_true", help="A is the engine alone.")
    parser.add_argument(
        "--floor", action="store_true", help="Also a bare ASGI app on the same uvicorn."
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--count", type=int, default=80, help="Submissions to each side.")
    args = parser.parse_args()
    if not WARM < args.count <= 1000:
        parser.error(f"--count must be in ({WARM}, 1000]")
    if (args.a_pg or args.b_pg) and not args.pg:
        parser.error("--a-pg and --b-pg need --pg")
    if args.a_engine and (args.a_form or args.a_rate_limit or args.a_src != HERE):
        parser.error(
            "the engine (--a-engine) is sent no HTTP: --a-form, --a-rate-limit and "
            "--a-src are a server's"
        )
    sides = [
        Side(args.a_src.resolve(), args.a_form, args.a_engine, args.a_pg, args.a_rate_limit),
        Side(args.b_src.resolve(), args.b_form, False, args.b_pg, args.b_rate_limit),
    ]
    for name, side in zip("AB", sides, strict=True):
        print(f"{name}: {side.describe()}")
    floor_head = f" {'floor ms':>8}" if args.floor else ""
    print(f"{'n':>7} {'A ms':>7} {'B ms':>7}{floor_head} {'B/A':>6}   (one client, in turns)")
    with tempfile.TemporaryDirectory(prefix="ladderboard-ab-") as folder:
        for n in args.sizes:
            a, b, *floor = side_ms(n, args.count, sides, args.floor, args.pg, Path(folder))
            goal = GOALS.get(n) if args.a_engine else None
            print(
                f"{n:>7} {a:>7.2f} {b:>7.2f}"
                + "".join(f" {f:>8.2f}" for f in floor)
                + f" {b / a:>6.2f}"
                + (f"   goal <= {goal} (HTTP over the engine)" if goal else ""),
                flush=True,
            )


if __name__ == "__main__":
    main()
