"""A store as ladderboard wrote it at schema revision 0017, before accounts:
its rows in ``tests/data/store_0017.json``, loaded into any database.

The rows were written by the engine of that revision (commit f6db3c4), not
by hand: ``python tests/store_0017.py`` with that commit's ``src`` on
``PYTHONPATH`` (``git archive f6db3c4 src | tar -x -C /tmp/old``) writes a
SQLite store through it and dumps every table. The store holds competition
``legacy`` (open, a daily quota of 3, no deadline) with teams ``alpha`` and
``beta`` and their tokens, three scored submissions (one of beta's repeats
alpha's: a duplicate flag), a data file, a team's browser session and an
organiser's session; the sessions last a century, so that they are still
live whenever the test runs. The secrets a client would hold are in the
file's ``secrets``.

:func:`load` builds the 0017 schema with Alembic and inserts the rows as
they were, on SQLite or PostgreSQL.
"""

from __future__ import annotations

import base64
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Engine, LargeBinary, MetaData, text

DUMP = Path(__file__).parent / "data" / "store_0017.json"
REVISION = "0017"
SECRETS = {
    "alpha": "legacy-alpha-token-Zq7vN2pXw8Lr4Ky9Tb3Hs6Jd1Fm5Gc",
    "beta": "legacy-beta-token-Hs6Jd1Fm5GcZq7vN2pXw8Lr4Ky9Tb3",
}


def _encoded(value: Any) -> Any:
    if isinstance(value, bytes | memoryview):
        return {"base64": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    return value


def _decoded(value: Any, column: Any) -> Any:
    if isinstance(value, dict) and "base64" in value and isinstance(column.type, LargeBinary):
        return base64.b64decode(value["base64"])
    if isinstance(value, dict) and "datetime" in value and isinstance(column.type, DateTime):
        return datetime.fromisoformat(value["datetime"])
    return value


def dump(engine: Engine) -> dict[str, Any]:
    """Every table's rows (but Alembic's), with blobs and times spelled out."""
    metadata = MetaData()
    metadata.reflect(engine)
    tables: dict[str, Any] = {}
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            if table.name == "alembic_version":
                continue
            rows = connection.execute(table.select()).mappings().all()
            tables[table.name] = [{k: _encoded(v) for k, v in row.items()} for row in rows]
    return tables


def load(engine: Engine) -> dict[str, Any]:
    """Build the schema of revision 0017 in the empty database behind
    ``engine`` and insert the dumped rows as they are; return the secrets."""
    from ladderboard.store import migrate

    recorded = json.loads(DUMP.read_text())
    migrate(engine, REVISION)
    metadata = MetaData()
    metadata.reflect(engine)
    with engine.begin() as connection:
        for table in metadata.sorted_tables:  # parents before children
            rows = recorded["tables"].get(table.name, [])
            if rows:
                connection.execute(
                    table.insert(),
                    [{k: _decoded(v, table.c[k]) for k, v in row.items()} for row in rows],
                )
        if engine.dialect.name == "postgresql":  # the ids inserted: sequences go past them
            for table in metadata.sorted_tables:
                column = table.c.get("id")
                if (
                    column is not None
                    and column.autoincrement
                    and recorded["tables"].get(table.name)
                ):
                    connection.execute(
                        text(
                            f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                            f"(SELECT max(id) FROM {table.name}))"
                        )
                    )
    return recorded["secrets"]


def write(folder: Path) -> None:
    """Write the store with the engine on the path (that of revision 0017)
    and dump it to :data:`DUMP`."""
    import hashlib

    import numpy as np

    from ladderboard.engine import Competitions
    from ladderboard.files.solution import Solution
    from ladderboard.rules.config import CompetitionConfig

    def digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    url = f"sqlite:///{folder / 'store.db'}"
    store = Competitions.open(url)
    rng = np.random.default_rng(17)
    labels = rng.integers(0, 2, 60)
    solution = Solution.from_labels(labels, public_fraction=0.5, random_state=17)
    config = CompetitionConfig(score="zero_one", mechanism="ladder-boot", daily_quota=3)
    store.create("legacy", solution, config, title="Before accounts", random_state=17)
    store.add_file("legacy", "notes.md", b"# Notes\n")
    teams = {
        name: store.add_team("legacy", name, token_hash=digest(SECRETS[name])) for name in SECRETS
    }

    def predictions(seed: int) -> bytes:
        flips = np.random.default_rng(seed).random(len(labels)) < 0.3
        values = np.where(flips, 1 - labels, labels)
        rows = "".join(f"{i},{v}\n" for i, v in zip(solution.ids, values, strict=True))
        return ("id,target\n" + rows).encode()

    store.submit("legacy", "alpha", predictions(1))
    store.submit("legacy", "alpha", predictions(2))
    store.submit("legacy", "beta", predictions(2))  # flagged: alpha sent it first
    century = timedelta(days=36500)
    team_cookie = store.team_sessions.open(teams["alpha"].id, century)
    organiser_cookie = store.sessions.open(century)
    secrets = {
        "team_tokens": SECRETS,
        "team_session": {"team": "alpha", "cookie": team_cookie},
        "organiser_session": organiser_cookie,
    }
    DUMP.write_text(
        json.dumps(
            {"revision": REVISION, "secrets": secrets, "tables": dump(store.engine)},
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )
    store.dispose()


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        write(Path(scratch))
    print(f"wrote {DUMP}", file=sys.stderr)
