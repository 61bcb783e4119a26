"""A real server on a free loopback port, started and stopped from Python.

Used by ``ladderboard demo``, the HTTP load benchmark and the tests that
talk to a live server: uvicorn runs the app factory in a child process (or
several, with ``workers``), over the database the caller names, with a fresh
organiser token and the per-token rate limit off by default.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from typing import IO

import httpx2

from ladderboard.engine import migrate_store

__all__ = ["LocalServer", "free_port"]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on at ``host`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class LocalServer:
    """``with LocalServer(url) as server:`` serves ``url`` at ``server.url``.

    Parameters
    ----------
    database_url : str
        The store; migrated once here, before the workers start.
    workers : int
        uvicorn worker processes (more than one wants PostgreSQL).
    rate_limit_per_minute : int
        The server's per-token limit; 0 (the default here) turns it off.
    host : str
        A loopback address.
    startup_timeout : float
        Seconds to wait for ``/healthz`` to answer.
    admin_token : str, optional
        The organiser's token (default: a new random one). Servers over one
        store that are to act as one site share it.
    migrate : bool
        Whether to migrate the store here first (default). A benchmark that
        serves another checkout's code migrates with that code instead, as
        its workers would.
    """

    def __init__(
        self,
        database_url: str,
        *,
        workers: int = 1,
        rate_limit_per_minute: int = 0,
        host: str = "127.0.0.1",
        startup_timeout: float = 60.0,
        admin_token: str | None = None,
        migrate: bool = True,
    ):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if not host.startswith("127.") and host != "localhost":
            raise ValueError(f"host must be a loopback address, got {host!r}")
        self.database_url = database_url
        self.workers = workers
        self.rate_limit_per_minute = rate_limit_per_minute
        self.host = host
        self.startup_timeout = startup_timeout
        self.admin_token = admin_token or secrets.token_urlsafe(32)
        self.migrate = migrate
        self.port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the server is not started")
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        """The server's main process (uvicorn's supervisor when there are
        several workers, whose processes are its children)."""
        if self._process is None:
            raise RuntimeError("the server is not started")
        return self._process.pid

    def start(self) -> LocalServer:
        if self.migrate:
            migrate_store(self.database_url)
        self.port = free_port(self.host)
        env = os.environ | {
            "LADDERBOARD_DATABASE_URL": self.database_url,
            "LADDERBOARD_ADMIN_TOKEN": self.admin_token,
            "LADDERBOARD_ENVIRONMENT": "production",
            "LADDERBOARD_RATE_LIMIT_PER_MINUTE": str(self.rate_limit_per_minute),
        }
        command = [
            sys.executable,
            "-c",
            "from ladderboard.server.run import run_uvicorn; "
            f"run_uvicorn(host={self.host!r}, port={self.port}, workers={self.workers}, "
            "log_level='warning', access_log=False)",
        ]
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        self._process = subprocess.Popen(
            command, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        self._wait_until_up()
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                log = self._read_log()
                self.stop()
                raise RuntimeError(f"the server exited at start:\n{log}")
            try:
                if httpx2.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            time.sleep(0.05)
        log = self._read_log()
        self.stop()
        raise RuntimeError(f"the server did not answer within {self.startup_timeout} s:\n{log}")

    def _read_log(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def wait(self) -> None:
        """Block until the server process ends (e.g. on Ctrl-C)."""
        if self._process is not None:
            self._process.wait()

    def kill(self) -> None:
        """End the server's process with SIGKILL, as a crash or an out-of-memory
        kill would: nothing is closed or flushed (with one worker, that is the
        whole server). :meth:`start` serves again on a new port."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        self.stop()

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
