"""What the browser tests share: a live uvicorn server on a loopback port, in
a thread of the test process, and Debian's Chromium driven by Playwright.

The fixtures over them (``live_server``, ``browser``) are in ``conftest.py``;
a test module that wants one server for all of its tests (seeded once) calls
:func:`serve` itself.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn
from playwright.sync_api import Browser, sync_playwright

from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings
from system import require

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextlib.contextmanager
def serve(settings: Settings) -> Iterator[str]:
    """The base URL of a uvicorn server over ``settings`` on a free loopback
    port, in a thread; stopped on exit."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Chromium at :data:`CHROMIUM`; the test is skipped (failed
    under ``CI=true``) with the instruction to install it when it is missing."""
    require(
        os.access(CHROMIUM, os.X_OK),
        f"{CHROMIUM} is missing (apt-get install chromium): see the README's Set-up",
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()
