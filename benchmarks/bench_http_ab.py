"""Two servers side by side, one submission to each in turn: what a change
to the server costs or saves over HTTP, in the same run.

Side A and side B each run ``ladderboard serve``'s app from a source tree
(``--a-src``, ``--b-src``: the ``src`` folder of a checkout, say a ``git
worktree`` of an earlier commit; by default this checkout's) over a SQLite
file of its own, and each is sent its requests as the file itself or, with
``--a-form`` / ``--b-form``, as a multipart form. One client sends a
submission to A then one to B (B first every other time), each a new file,
so that the drift of a shared machine falls on both sides alike; it prints
each side's median one-client latency and B against A.

    git worktree add /tmp/old <commit>
    python benchmarks/bench_http_ab.py --a-src /tmp/old/src [--sizes 10000 100000] [--count 80]
    python benchmarks/bench_http_ab.py --a-form          # a form against the file as the body

Loopback only; every server it starts is stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer
from load_http import SLUG, build_request, make_files

HERE = Path(__file__).resolve().parents[1] / "src"
WARM = 4  # submissions of each side not counted


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


def side_ms(n: int, count: int, sides: list[tuple[Path, bool]], folder: Path) -> list[float]:
    """The median milliseconds of each side's submissions, alternated."""
    rng = np.random.default_rng(n)
    solution = Solution.from_labels(rng.integers(0, 2, n), public_fraction=0.5, random_state=0)
    files = make_files(solution, count, seed=n)
    with contextlib.ExitStack() as stack:
        connections, requests = [], []
        for i, (src, form) in enumerate(sides):
            with python_path(src):
                server = stack.enter_context(LocalServer(f"sqlite:///{folder / f'{n}-{i}.db'}"))
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
            connections.append(connection)
            requests.append(
                [build_request(token, f"k{j}", f, form=form) for j, f in enumerate(files)]
            )
        times: list[list[float]] = [[] for _ in sides]
        for j in range(count):
            for i in (0, 1) if j % 2 else (1, 0):
                request = requests[i][j]
                start = time.perf_counter()
                connections[i].request(
                    "POST", f"/api/competitions/{SLUG}/submissions",
                    body=request.body, headers=request.headers,
                )  # fmt: skip
                answer = connections[i].getresponse()
                text = answer.read()
                times[i].append(time.perf_counter() - start)
                if answer.status != 201:
                    raise AssertionError(f"side {'AB'[i]}: {answer.status} {text[:300]!r}")
    return [1e3 * statistics.median(t[WARM:]) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a-src", type=Path, default=HERE, help="Side A's source tree.")
    parser.add_argument("--b-src", type=Path, default=HERE, help="Side B's source tree.")
    parser.add_argument("--a-form", action="store_true", help="Side A is sent forms.")
    parser.add_argument("--b-form", action="store_true", help="Side B is sent forms.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--count", type=int, default=80, help="Submissions to each side.")
    args = parser.parse_args()
    if not WARM < args.count <= 1000:
        parser.error(f"--count must be in ({WARM}, 1000]")
    sides = [(args.a_src.resolve(), args.a_form), (args.b_src.resolve(), args.b_form)]
    for name, (src, form) in zip("AB", sides, strict=True):
        print(f"{name}: {src}, {'multipart forms' if form else 'the file as the body'}")
    print(f"{'n':>7} {'A ms':>7} {'B ms':>7} {'B/A':>6}   (one client, alternated, SQLite)")
    with tempfile.TemporaryDirectory(prefix="ladderboard-ab-") as folder:
        for n in args.sizes:
            a, b = side_ms(n, args.count, sides, Path(folder))
            print(f"{n:>7} {a:>7.2f} {b:>7.2f} {b / a:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
