"""Representative histories whose releases are recorded, to show that a change
of structure leaves every released score and decision as it was, bit for bit.

:func:`library_histories` feeds every mechanism a fixed sequence of inputs
directly; :func:`store_histories` plays every mechanism on a per-team and a
per-rank board through the engine. Floats are written with ``float.hex``.
``python tests/golden_histories.py`` rewrites ``tests/data/golden_releases.json``
and ``tests/data/golden_store.sqlite`` (a store for the ``verify`` check); do
that only when a release is meant to change.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data"
RECORD = DATA / "golden_releases.json"
STORE = DATA / "golden_store.sqlite"

N = 200
STEPS = 12
TEAMS = ("north", "south", "east")
SUBMISSIONS = 4


def _hex(value) -> str:
    return "nan" if value is None or math.isnan(value) else float(value).hex()


def _mechanism_params(name: str, n: int) -> dict:
    # The Shaky Ladder's noise and step, and Thresholdout's threshold and
    # noise, are given as their defaults were when the releases were recorded
    # (0.5/√n and 1/√n; 4/√n and 1/√n, for their n labels, computed as they
    # computed them): the record checks structure, and a default chosen again
    # later must not look like a changed release.
    return {
        "ladder": {"eta": 0.02},
        "shaky-ladder": {
            "max_updates": 20,
            "noise_scale": 0.5 / math.sqrt(n),
            "step": 1.0 / math.sqrt(n),
        },
        "thresholdout": {
            "budget": 20,
            "threshold": 4.0 / math.sqrt(n),
            "noise_scale": 1.0 / math.sqrt(n),
        },
    }.get(name, {})


def _score(klass) -> str:
    return "zero_one" if klass.input_kind == "losses" else "auc"


def library_histories() -> dict[str, list]:
    """Each mechanism fed ``STEPS`` inputs drawn from a fixed generator."""
    from ladderboard.losses import get_metric
    from ladderboard.mechanisms import MECHANISMS

    out = {}
    for name, klass in sorted(MECHANISMS.items()):
        rng = np.random.default_rng(7)
        y = rng.integers(0, 2, N)
        params = dict(_mechanism_params(name, N))
        if klass.input_kind == "losses":
            params["n"] = N
        else:
            params["metric"] = get_metric("auc")
            params["y_true"] = y
        if klass.stochastic:
            params["random_state"] = 11
        mechanism = klass(**params)
        releases = []
        for step in range(STEPS):
            quality = 0.5 - 0.03 * step + 0.02 * rng.standard_normal()
            if klass.input_kind == "losses":
                x = (rng.random(N) < quality).astype(float)
            else:
                x = np.clip(y * (1 - quality) + (1 - y) * quality + 0.3 * rng.random(N), 0, 1)
            release = mechanism.submit(x)
            releases.append([_hex(release.score), bool(release.improved)])
        out[name] = releases
    return out


def _predictions(klass, solution, rng, step):
    y = solution.targets.ravel()
    quality = 0.45 - 0.04 * step + 0.05 * rng.standard_normal()
    if klass.input_kind == "losses":
        wrong = rng.random(len(y)) < quality
        return np.where(wrong, 1 - y, y).astype(float)
    return np.clip(y * (1 - quality) + (1 - y) * quality + 0.4 * rng.random(len(y)), 0, 1)


def _csv(solution, predictions) -> bytes:
    lines = [f"{solution.id_column},{solution.target_columns[0]}"]
    lines += [f"{i},{float(p)!r}" for i, p in zip(solution.ids, predictions, strict=True)]
    return ("\n".join(lines) + "\n").encode()


def store_histories(url: str) -> dict[str, dict]:
    """Every mechanism on a per-team and a per-rank board in the store at ``url``:
    each submission's release and the final public and private boards."""
    from ladderboard.engine import Competitions
    from ladderboard.files.solution import Solution
    from ladderboard.mechanisms import COMPETITION_MECHANISMS
    from ladderboard.rules.config import CompetitionConfig

    store = Competitions.open(url)
    out = {}
    try:
        for name, klass in sorted(COMPETITION_MECHANISMS.items()):
            for board in ("per-team", "per-rank"):
                slug = f"{name}-{board}"
                rng = np.random.default_rng(3)
                solution = Solution.from_labels(
                    rng.integers(0, 2, N), public_fraction=0.5, random_state=5
                )
                config = CompetitionConfig(
                    score=_score(klass),
                    mechanism=name,
                    mechanism_params=_mechanism_params(name, solution.n_public),
                    board=board,
                    ranks=2,
                    daily_quota=None,
                )
                store.create(slug, solution, config, random_state=17)
                for team in TEAMS:
                    store.add_team(slug, team)
                releases = []
                for step in range(SUBMISSIONS):
                    for team in TEAMS:
                        data = _csv(solution, _predictions(klass, solution, rng, step))
                        result = store.submit(slug, team, data)
                        releases.append([team, result.number, _hex(result.public_score)])
                public = store.leaderboard(slug, "public")
                store.close(slug)
                store.publish(slug)
                private = store.leaderboard(slug, "private")
                out[slug] = {
                    "releases": releases,
                    "public": [[r.team, r.number, _hex(r.score)] for r in public],
                    "private": [[r.team, r.number, _hex(r.score)] for r in private],
                }
    finally:
        store.dispose()
    return out


def record(store_url: str) -> dict:
    return {"library": library_histories(), "store": store_histories(store_url)}


if __name__ == "__main__":
    DATA.mkdir(exist_ok=True)
    STORE.unlink(missing_ok=True)
    recorded = record(f"sqlite:///{STORE}")
    RECORD.write_text(json.dumps(recorded, indent=1) + "\n")
    print(f"wrote {RECORD} and {STORE}", file=sys.stderr)
