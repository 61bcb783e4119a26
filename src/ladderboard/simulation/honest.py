"""Honest teams: a style, and a search that follows the public board.

Each team has a :class:`Style`: a favourite model family, a feature subset, a
scaling, and how adventurous it is. It works as people do on Kaggle:

1. its first submission is the family's default model (a few teams first send
   the sample submission filled with the training base rate);
2. each later submission is a variant of the team's current best, the
   submission with the lowest public score it has been shown so far
   (ties: the earlier one): one hyperparameter moved one step along its grid;
   sometimes another feature subset, scaling or model family; a blend of its
   best and its second-best submission; or a recalibration of its best
   (logits divided by a temperature);
3. it keeps the variant as its new best only if the board shows a lower score;
   a refused file (a formatting defect) shows nothing and changes nothing;
4. while its best is worse than predicting the training base rate everywhere
   (whose log loss the team can compute from its training labels), it most
   often tries another model family.

Random forests and extra trees are seeded by the team's favourite seed (42
most often), so teams that converge on the same hyperparameters still submit
different forests.

The team never sees a label; what it learns of the test set it learns from
the releases, which is how honest teams overfit the public board a little.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ladderboard.simulation.models import (
    FAMILIES,
    SCALED,
    SCALINGS,
    Blend,
    Calibrated,
    Constant,
    Model,
    Recipe,
    Zoo,
    default_model,
    neighbour,
    temperature_step,
)
from ladderboard.simulation.submitting import TeamDesk

__all__ = ["Style", "draw_style", "play_honest"]

_FAMILY_WEIGHTS = {
    "logistic": 0.30,
    "naive_bayes": 0.06,
    "knn": 0.10,
    "random_forest": 0.20,
    "extra_trees": 0.10,
    "gradient_boosting": 0.24,
}
_TRIES = 12
_SEEDS = (0, 1, 7, 42, 123, 2024)
_SEED_WEIGHTS = (0.2, 0.1, 0.1, 0.4, 0.1, 0.1)  # 42 is the favourite


@dataclass(frozen=True, slots=True)
class Style:
    """How one honest team works (see the module docstring)."""

    family: str
    features: str
    scaling: str
    explore: float
    blend: float
    calibrate: float
    starts_constant: bool
    shuffles_rows: bool
    seed: int

    def describe(self) -> str:
        """The ``strategy`` column of ``teams.csv``: ``family:features:scaling``."""
        return f"{self.family}:{self.features}:{self.scaling}"


def draw_style(rng: np.random.Generator, feature_sets: list[str]) -> Style:
    """A team's style: family by popularity, a feature subset, a scaling, its habits."""
    families = list(_FAMILY_WEIGHTS)
    weights = np.array(list(_FAMILY_WEIGHTS.values()))
    family = families[int(rng.choice(len(families), p=weights / weights.sum()))]
    features = "all" if rng.random() < 0.5 else feature_sets[int(rng.integers(len(feature_sets)))]
    scaling = SCALINGS[int(rng.integers(len(SCALINGS)))] if family in SCALED else "none"
    return Style(
        family=family,
        features=features,
        scaling=scaling,
        explore=float(rng.uniform(0.05, 0.3)),
        blend=float(rng.uniform(0.0, 0.2)),
        calibrate=float(rng.uniform(0.0, 0.15)),
        starts_constant=bool(rng.random() < 0.1),
        shuffles_rows=bool(rng.random() < 0.1),
        seed=int(rng.choice(_SEEDS, p=_SEED_WEIGHTS)),
    )


def _core(recipe: Recipe | None, style: Style) -> Model:
    """The model a recipe is built on (a blend's first part, a calibration's base)."""
    while isinstance(recipe, Blend | Calibrated):
        recipe = recipe.a if isinstance(recipe, Blend) else recipe.base
    if isinstance(recipe, Model):
        return recipe
    return default_model(style.family, style.features, style.scaling, style.seed)


def _propose(
    best: Recipe | None,
    ranked: list[Recipe],
    style: Style,
    feature_sets: list[str],
    rng: np.random.Generator,
    *,
    hopeless: bool,
) -> Recipe:
    core = _core(best, style)
    if best is None or isinstance(best, Constant):
        return core
    r = rng.random()
    if hopeless and r < 0.7:
        r = 0.0  # worse than a constant: try something else
    if r < style.explore:
        what = 0.0 if hopeless else rng.random()
        if what < 0.45:
            family = [f for f in FAMILIES if f != core.family][int(rng.integers(len(FAMILIES) - 1))]
            return default_model(family, core.features, core.scaling, style.seed)
        if what < 0.8:
            return Model(core.family, core.params, str(rng.choice(feature_sets)), core.scaling)
        if core.family in SCALED:
            return Model(core.family, core.params, core.features, str(rng.choice(SCALINGS)))
        return neighbour(core, rng)
    r -= style.explore
    if r < style.blend and len(ranked) >= 2:
        other = next(x for x in ranked if x != best)
        weight = (0.5, 0.6, 0.7, 0.8)[int(rng.integers(4))]
        return Blend(best, other, weight)
    r -= style.blend
    if r < style.calibrate:
        if isinstance(best, Calibrated):
            return Calibrated(best.base, temperature_step(best.temperature, rng))
        return Calibrated(best, temperature_step(1.0, rng))
    return neighbour(core, rng)


def play_honest(
    desk: TeamDesk, style: Style, zoo: Zoo, feature_sets: list[str], rng: np.random.Generator
) -> None:
    """Make the team's ``desk.budget`` submissions, keeping its best by the public board."""
    best: Recipe | None = None
    best_number: int | None = None
    best_release = math.inf
    shown: list[tuple[float, int, Recipe]] = []  # (release, number, recipe) of scored ones
    tried: set[Recipe] = set()
    rate = min(max(zoo.base_rate, 1e-6), 1 - 1e-6)  # what the team knows from its labels:
    baseline = -(rate * math.log(rate) + (1 - rate) * math.log(1 - rate))  # a constant's loss
    for number in range(desk.budget):
        if number == 0 and style.starts_constant:
            recipe: Recipe = Constant()
        else:
            ranked = [recipe for _, _, recipe in sorted(shown, key=lambda s: (s[0], s[1]))]
            for _ in range(_TRIES):
                recipe = _propose(
                    best, ranked, style, feature_sets, rng, hopeless=best_release > baseline
                )
                if recipe not in tried:
                    break
        tried.add(recipe)
        release = desk.submit(zoo.predict(recipe), recipe=recipe.describe(), parent=best_number)
        if release is None:
            continue
        shown.append((release, number, recipe))
        if release < best_release:
            best, best_number, best_release = recipe, number, release
