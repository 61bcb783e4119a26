"""The plan of a simulated competition: team names, efforts, times and defects.

Drawn before any team plays, from the plan's own streams, so that a team's
behaviour never changes who submits how much, or when.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from ladderboard.simulation.adversaries import MIN_BUDGET
from ladderboard.simulation.defects import DEFECTS

if TYPE_CHECKING:
    import numpy as np

__all__ = ["START", "budgets", "defect_plan", "submission_times", "team_names"]

START = datetime(2026, 1, 5, tzinfo=UTC)
"""When the simulated competition opens (it runs for ``days`` days)."""
_ADVERSARY_SHARE = 0.03  # of all submissions, per adversary
_EFFORT_SIGMA = 1.1  # log-normal spread of the teams' efforts
_ADJECTIVES = (  # noqa: SIM905 (a list of words reads better as words)
    "amber azure bold brave brisk calm clever cosmic crimson curious daring eager fuzzy gentle "
    "golden happy hidden humble icy jolly keen lucky mellow misty noble odd quiet rapid rusty "
    "silent silver sly steady sunny swift tidy wild witty"
).split()
_NOUNS = (  # noqa: SIM905
    "badger bison crane dingo eagle falcon ferret gecko heron ibis jackal koala lemur lynx "
    "marmot moose newt ocelot otter panda puffin quokka raven salmon stoat tapir toucan "
    "urchin viper walrus wombat yak zebra"
).split()


def team_names(n: int, rng: np.random.Generator) -> list[str]:
    """``n`` distinct names like ``quiet_heron`` (single underscores only)."""
    pairs = [f"{a}_{b}" for a in _ADJECTIVES for b in _NOUNS]
    order = rng.permutation(len(pairs))
    return [
        pairs[order[i % len(pairs)]] + (f"_{i // len(pairs) + 1}" if i >= len(pairs) else "")
        for i in range(n)
    ]


def budgets(is_adversary: np.ndarray, total: int, rng: np.random.Generator) -> list[int]:
    """Submissions per team: 3 % of ``total`` per adversary (at least 4); one per honest
    team plus a share of the rest in proportion to log-normal weights (heavy-tailed)."""
    n_adv = int(is_adversary.sum())
    n_honest = len(is_adversary) - n_adv
    per_adversary = 0
    if n_adv:
        per_adversary = max(
            MIN_BUDGET, min(round(_ADVERSARY_SHARE * total), (total - n_honest) // n_adv)
        )
    rest = total - n_honest - n_adv * per_adversary
    weights = rng.lognormal(0.0, _EFFORT_SIGMA, n_honest)
    extra = rng.multinomial(rest, weights / weights.sum())
    honest = iter((1 + extra).tolist())
    return [per_adversary if adv else next(honest) for adv in is_adversary.tolist()]


def submission_times(
    budgets: list[int], days: int, rng: np.random.Generator
) -> list[list[datetime]]:
    """Each team's submission times: it joins (most join early), then submits
    at increasing whole seconds, more of them towards the end."""
    import numpy as np

    length = days * 86400
    out = []
    for budget in budgets:
        join = int(rng.beta(1.0, 2.5) * 0.9 * length)
        u = np.sort(rng.random(budget) ** (1 / 1.5))
        seconds = (join + u * (length - 1 - join)).astype(np.int64)
        for j in range(1, budget):  # distinct seconds: file names must differ
            seconds[j] = max(seconds[j], seconds[j - 1] + 1)
        out.append([START + timedelta(seconds=int(s)) for s in seconds])
    return out


def defect_plan(
    budgets: list[int], is_adversary: np.ndarray, rate: float, rng: np.random.Generator
) -> dict[int, dict[int, str]]:
    """Which honest submissions get which defect: ``{team: {number: kind}}``; every
    kind is used once before any is used twice."""
    import numpy as np

    slots = [(i, j) for i, b in enumerate(budgets) if not is_adversary[i] for j in range(b)]
    n = min(len(slots), round(rate * sum(budgets)))
    chosen = rng.choice(len(slots), size=n, replace=False) if n else np.array([], dtype=int)
    kinds: list[str] = []
    while len(kinds) < n:
        kinds.extend(np.asarray(DEFECTS)[rng.permutation(len(DEFECTS))].tolist())
    out: dict[int, dict[int, str]] = {}
    for slot, kind in zip(sorted(chosen.tolist()), kinds, strict=False):
        team, number = slots[slot]
        out.setdefault(team, {})[number] = kind
    return out
