"""What a test needs from the system (PostgreSQL, Chromium): a test whose
need is not met is skipped with the instruction to meet it, except under
``CI=true``, where it fails, since CI must run every test."""

from __future__ import annotations

import functools
import os

import pytest

PG_ADMIN_URL = os.environ.get(
    "LADDERBOARD_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
IN_CI = os.environ.get("CI", "").lower() == "true"


def require(available: bool, instruction: str) -> None:
    """Skip the test with ``instruction`` unless ``available``; fail under ``CI=true``."""
    if available:
        return
    if IN_CI:
        pytest.fail(instruction, pytrace=False)
    pytest.skip(instruction)


@functools.cache
def postgres_reachable() -> bool:
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_ADMIN_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            connection.execute(text("select 1"))
        return True
    except Exception:
        return False
    finally:
        engine.dispose()
