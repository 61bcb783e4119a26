"""What a mechanism costs honest teams: a fast model of a competition.

``teams`` teams each make ``submissions`` submissions. A team's skill ``a``
moves by small steps, mostly up (an improvement) and sometimes down (a
regression). Submission ``t`` of team ``j`` gets point ``i`` right to a degree
set by ``a_{j,t} + z_{j,t,i}``, with ``z`` standard normal and correlated: a
point's difficulty is partly shared by all teams and partly the team's own,
and two submissions of one team share ``correlation`` of their variance (as
successive versions of one model do). Under each score:

* ``zero_one``: point ``i`` is right iff ``a + z > 0``; expected 0/1 loss ``Φ(-a)``;
* ``log_loss``: the probability of the true class is ``σ(κ(a + z))``, clipped to
  ``[0.01, 0.99]``; expected loss by Gauss-Hermite quadrature;
* ``squared``: the prediction is ``y + e^{-a} z``; expected loss ``e^{-2a}``.

The *expected* loss of each submission is therefore known exactly: a *true
improvement* is a submission whose expected loss is below the team's best so
far by more than ``min_improvement`` (relative). Each team plays its own
instance of the mechanism (a per-team board, Blum & Hardt 2015, Sec. 2.1) on
``n`` public labels, and is also scored on ``n_private`` private labels.

Three measures of utility (:func:`honest_utility`):

* ``tau``: Kendall's tau between the released public board (each team's best
  release under full disclosure, its latest otherwise) and the private board
  (the private loss of each team's truly best submission);
* ``share_released``: the share of true improvements that the board accepts
  at once (``Release.improved``: a ladder steps, full disclosure shows a new
  best);
* ``median_delay``: the median number of submissions from a true improvement
  until the board accepts one (1 = at once; ``inf`` if it never does within
  the team's submissions).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ladderboard._validation import check_int, check_real
from ladderboard.advisor.grid import ScoringRule, Setting

if TYPE_CHECKING:
    import numpy as np

    from ladderboard.random import RandomState

__all__ = ["HonestTeams", "TeamData", "expected_loss", "honest_utility", "simulate_teams"]

_KAPPA = 1.5  # log loss: logit scale of a team's confidence
_CLIP = (0.01, 0.99)


@functools.cache
def _standard_normal_quadrature() -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights (64) for an expectation over N(0, 1)."""
    import numpy as np

    nodes, weights = np.polynomial.hermite_e.hermegauss(64)
    return nodes, weights / weights.sum()


@dataclass(frozen=True, slots=True)
class HonestTeams:
    """The honest-team model's parameters.

    Attributes
    ----------
    teams, submissions : int
        Teams, and submissions per team.
    correlation : float
        Share of the variance of ``z`` two submissions of a team have in common.
    shared : float
        Share of a point's difficulty common to all teams.
    skill : tuple of float
        Range of the teams' initial skill ``a`` (uniform): expected 0/1 losses
        of about 0.21 to 0.38.
    step : float
        Mean size of a skill step (exponential); regressions are half as large.
    improve_probability : float
        Chance that a step is an improvement.
    min_improvement : float
        A true improvement lowers the team's best expected loss by more than
        this fraction of it.
    """

    teams: int = 20
    submissions: int = 40
    correlation: float = 0.9
    shared: float = 0.5
    skill: tuple[float, float] = (0.3, 0.8)
    step: float = 0.03
    improve_probability: float = 0.6
    min_improvement: float = 0.01

    def __post_init__(self) -> None:
        check_int("teams", self.teams, 3)
        check_int("submissions", self.submissions, 2)
        check_real("correlation", self.correlation, low=0, high=1, low_open=False)
        check_real("shared", self.shared, low=0, high=1, low_open=False, high_open=False)
        check_real("step", self.step, low=0)
        check_real("improve_probability", self.improve_probability, low=0, high=1)
        check_real("min_improvement", self.min_improvement, low=0, high=1, low_open=False)


def expected_loss(rule: ScoringRule, skill: Any) -> np.ndarray:
    """The expected per-sample loss at skill ``a`` under the model.

    >>> from ladderboard.advisor.grid import scoring_rule
    >>> expected_loss(scoring_rule("zero_one"), [0.0, 1.0]).round(4)
    array([0.5   , 0.1587])
    >>> expected_loss(scoring_rule("squared"), [0.0]).tolist()
    [1.0]
    """
    import numpy as np
    from scipy import stats

    a = np.asarray(skill, dtype=np.float64)
    if rule.name == "zero_one":
        return stats.norm.cdf(-a)
    if rule.name == "squared":
        return np.exp(-2.0 * a)
    nodes, weights = _standard_normal_quadrature()
    p = np.clip(_sigmoid(_KAPPA * (a[..., None] + nodes)), *_CLIP)
    return -np.log(p) @ weights


def _sigmoid(x: np.ndarray) -> np.ndarray:
    import numpy as np

    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True, eq=False, slots=True)
class TeamData:
    """One simulated competition (organiser-side).

    Attributes
    ----------
    y_public : ndarray
        The public labels.
    predictions : ndarray, shape (teams, submissions, n)
        Every submission's predictions on the public labels.
    expected : ndarray, shape (teams, submissions)
        Every submission's expected loss.
    private : ndarray, shape (teams, submissions)
        Every submission's loss on the private labels.
    """

    y_public: np.ndarray
    predictions: np.ndarray
    expected: np.ndarray
    private: np.ndarray


def _outcome(rule: ScoringRule, y: np.ndarray, skill: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Predictions for labels ``y`` at ``skill`` (one per row of ``z``)."""
    import numpy as np

    margin = skill[:, None] + z
    if rule.name == "zero_one":
        return np.where(margin > 0, y, 1 - y).astype(np.int8)
    if rule.name == "squared":
        return (y + np.exp(-skill)[:, None] * z).astype(np.float64)
    p_true = np.clip(_sigmoid(_KAPPA * margin), *_CLIP)
    return np.where(y == 1, p_true, 1.0 - p_true)


def _labels(rule: ScoringRule, rng: np.random.Generator, size: int) -> np.ndarray:
    import numpy as np

    if rule.name == "squared":
        return rng.standard_normal(size)
    return rng.integers(0, 2, size=size, dtype=np.int8)


def _point_loss(rule: ScoringRule, y: np.ndarray, prediction: np.ndarray) -> np.ndarray:
    import numpy as np

    if rule.loss is None:
        return (prediction != y).astype(np.float64)
    return rule.loss(y, prediction)


def simulate_teams(
    rule: ScoringRule,
    *,
    n: int,
    n_private: int,
    model: HonestTeams,
    random_state: RandomState,
) -> TeamData:
    """Draw one competition of honest teams.

    Labels and shared difficulty come from ``generator(0)`` of
    ``KeyedStream.from_random_state(random_state)``, team ``j``'s skill path
    and noise from ``generator(1, j)``.

    >>> from ladderboard.advisor.grid import scoring_rule
    >>> data = simulate_teams(scoring_rule("zero_one"), n=2000, n_private=4000,
    ...                       model=HonestTeams(teams=5, submissions=10), random_state=0)
    >>> data.predictions.shape, bool(abs(data.private - data.expected).max() < 0.05)
    ((5, 10, 2000), True)
    """
    import numpy as np

    from ladderboard.random import KeyedStream

    n = check_int("n", n, 2)
    n_private = check_int("n_private", n_private, 1)
    stream = KeyedStream.from_random_state(random_state)
    common = stream.generator(0)
    size = n + n_private
    y = _labels(rule, common, size)
    difficulty = common.standard_normal(size)
    teams, subs = model.teams, model.submissions
    dtype = np.int8 if rule.name == "zero_one" else np.float64
    predictions = np.empty((teams, subs, n), dtype=dtype)
    expected = np.empty((teams, subs))
    private = np.empty((teams, subs))
    c = model.correlation
    for j in range(teams):
        rng = stream.generator(1, j)
        start = rng.uniform(*model.skill)
        up = rng.random(subs - 1) < model.improve_probability
        size_of_step = rng.exponential(model.step, subs - 1) * np.where(up, 1.0, -0.5)
        skill = start + np.concatenate(([0.0], np.cumsum(size_of_step)))
        own = math.sqrt(model.shared) * difficulty + math.sqrt(1 - model.shared) * (
            rng.standard_normal(size)
        )
        z = math.sqrt(c) * own + math.sqrt(1 - c) * rng.standard_normal((subs, size))
        outcome = _outcome(rule, y, skill, z)
        predictions[j] = outcome[:, :n]
        expected[j] = expected_loss(rule, skill)
        private[j] = [_point_loss(rule, y[n:], row[n:]).mean() for row in outcome]
    return TeamData(y_public=y[:n], predictions=predictions, expected=expected, private=private)


def _true_improvements(expected: np.ndarray, min_improvement: float) -> np.ndarray:
    """Boolean ``(teams, submissions)``: beats the team's best expected loss so far."""
    import numpy as np

    best_before = np.minimum.accumulate(expected, axis=1)[:, :-1]
    events = np.zeros_like(expected, dtype=bool)
    events[:, 1:] = expected[:, 1:] < best_before * (1.0 - min_improvement)
    return events


def _delays(events: np.ndarray, accepted: np.ndarray) -> np.ndarray:
    """For each true improvement, submissions until the board accepts one."""
    import numpy as np

    out = []
    for j, t in zip(*np.nonzero(events), strict=True):
        later = np.flatnonzero(accepted[j, t:])
        out.append(float(later[0] + 1) if later.size else math.inf)
    return np.array(out)


def honest_utility(
    setting: Setting,
    rule: ScoringRule,
    data: TeamData,
    *,
    model: HonestTeams,
    random_state: RandomState,
) -> dict[str, float]:
    """Play every team of ``data`` through ``setting``'s board and measure utility.

    Team ``j``'s board draws from ``KeyedStream.from_random_state(random_state).derive
    (f"team:{j}")``. Returns ``tau``, ``share_released``, ``median_delay`` and
    ``n_improvements`` (see the module's docstring).
    """
    import numpy as np
    from scipy import stats

    from ladderboard.random import KeyedStream

    stream = KeyedStream.from_random_state(random_state)
    teams, subs, n = data.predictions.shape
    loss = setting.board_loss(rule)
    accepted = np.zeros((teams, subs), dtype=bool)
    board = np.empty(teams)
    for j in range(teams):
        mechanism = setting.build(n, rule, data.y_public, stream.derive(f"team:{j}"))
        released = np.empty(subs)
        for t in range(subs):
            prediction = data.predictions[j, t]
            if mechanism.input_kind == "predictions":
                x = prediction.astype(np.float64)
            elif loss is None:
                x = (prediction != data.y_public).astype(np.float64)
            else:
                x = loss(data.y_public, prediction)
            release = mechanism.submit(x)
            released[t] = release.score
            accepted[j, t] = release.improved
        values = setting.to_loss(rule, released)
        board[j] = values.min() if not mechanism.release_is_current_best else values[-1]
    truly_best = np.argmin(data.expected, axis=1)
    private_board = data.private[np.arange(teams), truly_best]
    tau = stats.kendalltau(board, private_board).statistic
    events = _true_improvements(data.expected, model.min_improvement)
    delays = _delays(events, accepted)
    return {
        "tau": float(tau) if np.isfinite(tau) else 0.0,
        "share_released": float(accepted[events].mean()) if events.any() else math.nan,
        "median_delay": float(np.median(delays)) if delays.size else math.nan,
        "n_improvements": float(events.sum()),
    }
