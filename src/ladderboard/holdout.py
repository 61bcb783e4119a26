"""A validation set that answers model-selection queries through a leaderboard
mechanism, so that choosing among many models does not overfit it.

Scoring every candidate model on the same validation set and keeping the best
reuses that set adaptively: after enough queries the best score says more
about the set than about the models (Blum & Hardt 2015; Dwork et al. 2015,
Science). :class:`GuardedHoldout` keeps the labels and answers each query with
what a mechanism of :mod:`ladderboard.mechanisms` releases, and nothing else.

The default: the fixed-step Ladder with a step of ``1/√n``
------------------------------------------------------------
The threat to a validation set used for model selection is a search that
moves locally: each candidate a small change of the best so far (a search
that perturbs the incumbent's hyper-parameters, a sampler after its first
trials, a greedy feature or ensemble search). Two models that differ on
``m`` of the ``n`` rows differ in their paired losses by about ``√m/n``,
far below the set's own noise ``1/√n``. A ladder that takes a model when a
paired test at that scale says it is better (the parameter-free Ladder,
Blum & Hardt 2015, Fig. 2; the Significance Ladder and LadderBoot, Chaibub
Neto et al. 2016, Alg. 3-4) takes such a model whenever its changes fix a few
more rows than they break, and keeps every such step: near-duplicate
hill-climbing (:func:`~ladderboard.attacks.near_duplicate_attack`) walks its
score down far below the truth. Hardt (2017, Sec. 3-4) predicts this of
"faithful" mechanisms, whose releases follow the empirical risk closely, the
parameter-free Ladder faring worst.

The fixed-step Ladder (Blum & Hardt 2015, Fig. 1) takes a model only when it
beats the released best by ``η``, however few rows it changes, and releases
its score rounded to ``η``, so every change of the release costs a full
step; Thm 3.1 bounds the distance between the released best and the true
best over ``k`` adaptive queries by a term in ``η``, ``k`` and ``n`` alone.
:func:`default_step` sets ``η = 1/√n`` in units of the loss's range, the
set's noise at its worst (the mean of ``n`` 0/1 losses at error 1/2 has
standard deviation ``1/(2√n)``). At that step the theorem's count
(:meth:`GuardedHoldout.answers_left`) is zero below millions of rows, as it
holds for the worst case: what the step concedes at ordinary sizes is
measured, not proved. Measured (below), it is the candidate whose raw gain
under hill-climbing stays within two steps at every size and budget tried; a
finer step roughly halves a local search's loss of accuracy and roughly
doubles what the climb gains; the Significance Ladder at ``α = 0.01`` holds
the climb at a thousand queries and gives way at ten thousand; the Shaky
Ladder's noise (Hardt 2017, Fig. 1) slows the climb but concedes more than
the fixed step on a small set, and in the local search its reported scores
are as far from the truth as an unguarded search's.

What it costs, and what it does not protect: a model better than the best by
less than ``η`` is not taken, so a search whose moves each improve by less
than that stalls, and a small set cannot tell apart models closer than its
step (``1/√500 ≈ 0.045`` of the 0/1 loss at 500 rows). The guard bounds how
far the reported score is from the truth; it does not make a poor search
find a good model. For losses far below their range (a Brier score of a few
hundredths) the step is many times their noise: give a finer ``eta``,
knowing the climb gains more as the step shrinks.

``python benchmarks/bench_guarded.py`` measures both sides for each
candidate: the raw gain (Blum & Hardt 2015, Def. 2.1) under near-duplicate
hill-climbing and under a greedy local search over a real model, and that
search's true error against the same search unguarded.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ladderboard.analysis import ladder_max_submissions
from ladderboard.direction import Direction
from ladderboard.encoding import decode_array, encode_array, encode_float
from ladderboard.losses import KAGGLE_CLIP, LADDER_CLIP, LOSSES, METRICS, Loss, get_loss
from ladderboard.mechanisms import (
    MECHANISMS,
    GaussianThresholdout,
    Ladder,
    Mechanism,
    MetricMechanism,
    Thresholdout,
    make_mechanism,
)
from ladderboard.random import KeyedStream, RandomState

__all__ = [
    "DEFAULT_MECHANISM",
    "DEFAULT_STEP_MULTIPLE",
    "GuardedHoldout",
    "HoldoutAnswer",
    "default_step",
]

STATE_FORMAT = 1
_LOG_LOSSES = ("log_loss", "multiclass_log_loss")
"""The losses whose range is set by their clip (see :class:`GuardedHoldout`)."""
DEFAULT_MECHANISM = "ladder"
"""The mechanism a :class:`GuardedHoldout` uses unless told otherwise: the
fixed-step Ladder, with the step :func:`default_step` (see the module's
docstring for why)."""
DEFAULT_STEP_MULTIPLE = 1.0
"""The default Ladder's step ``η``, in units of the loss's range over ``√n``."""


def default_step(
    n: int, *, score: str = "zero_one", score_params: Mapping[str, Any] | None = None
) -> float:
    """The step ``η`` of the fixed-step Ladder that guards ``n`` labels of
    ``score`` when none is given: ``DEFAULT_STEP_MULTIPLE · (hi − lo)/√n``,
    with ``[lo, hi]`` the loss's range (``1/√n`` for the 0/1 loss and the
    Brier score).

    Blum & Hardt (2015, Thm 3.1) state the Ladder's guarantee for losses in
    ``[0, 1]``; a loss with a wider range is measured in its own units, so
    its step grows with the range, as the noise of a rescaled mechanism does
    in :class:`GuardedHoldout`. An unbounded loss has no such scale: give the
    step yourself (``mechanism_params={"eta": ...}``).

    >>> default_step(400), default_step(2500, score="brier")
    (0.05, 0.02)
    >>> round(default_step(400, score="log_loss", score_params={"clip": (0.01, 0.99)}), 4)
    0.2303
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"n must be an int, got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    if not isinstance(score, str):
        raise TypeError(f"score must be a loss name, got {type(score).__name__}")
    if score not in LOSSES:
        raise ValueError(
            f"score must be a loss of ladderboard.losses.LOSSES, got {score!r} "
            f"(losses: {', '.join(sorted(LOSSES))})"
        )
    lo, hi = get_loss(score, **dict(score_params or {})).bounds
    if not math.isfinite(hi - lo):
        raise ValueError(
            f"the fixed-step Ladder's default step is {DEFAULT_STEP_MULTIPLE:g} × the loss's "
            f"range / √n, and the loss {score!r} is unbounded: give the step "
            "(mechanism_params={'eta': ...}) or another mechanism"
        )
    return DEFAULT_STEP_MULTIPLE * (hi - lo) / math.sqrt(int(n))


@dataclass(frozen=True, slots=True)
class HoldoutAnswer:
    """One query and what was released for it.

    Attributes
    ----------
    index : int
        The query's 1-based position.
    score : float
        The released score, in the units of the loss or metric.
    train_score : float or None
        The training estimate given with the query, if any.
    digest : str
        SHA-256 of the predictions scored (which model was asked, without
        keeping the predictions).
    label : str or None
        The caller's name for the model.
    improved : bool
        Whether the mechanism took the query as its new best (on a ladder,
        the one query a release after it is about; ``False`` in a state
        saved before the decision was kept).
    """

    index: int
    score: float
    train_score: float | None
    digest: str
    label: str | None
    improved: bool = False


class GuardedHoldout:
    """A validation set guarded by a leaderboard mechanism.

    ``score(predictions)`` returns the mechanism's release for the
    predictions' loss (or metric) on the held labels: for the default
    fixed-step Ladder (Blum & Hardt 2015, Fig. 1), the best score so far
    rounded to the step ``η = 1/√n``, which changes only when a model beats
    it by more than that step. Only released scores leave the object; the
    labels and the exact scores stay inside.

    Parameters
    ----------
    y_true : array-like
        The validation labels (1-D).
    score : str
        A loss of :data:`ladderboard.losses.LOSSES` (for a loss-based
        mechanism) or a metric of :data:`ladderboard.losses.METRICS` (for a
        metric mechanism).
    mechanism : str or Mechanism
        A registered mechanism's name, or a fresh instance of one. The
        default, ``"ladder"``, is the fixed-step Ladder with the step
        :func:`default_step` unless ``mechanism_params`` gives ``eta``: a
        search of near-duplicates gains about one step on it (the module's
        docstring says why it is the default), and its bound covers a count
        of answers (:meth:`answers_left`). Thresholdout (Dwork et al. 2015)
        answers with the training estimate when the holdout agrees, and
        needs one with each query and a budget.
    mechanism_params : mapping, optional
        Parameters of a mechanism given by name (``{"budget": 20}``).
    score_params : mapping, optional
        Parameters of the loss (``{"clip": (0.01, 0.99)}`` for the log loss).
    random_state : int, key or None
        For a stochastic mechanism given by name: ``None`` draws a secret key.

    Scores are in the units of the loss: when the mechanism needs losses in
    ``[0, 1]`` (the Shaky Ladder, Thresholdout) and the loss is bounded more
    widely, it sees the loss rescaled into ``[0, 1]``, and its releases (and
    the training estimates it is given) are mapped between the two. The
    mechanism's noise and thresholds then grow with the loss's range: the log
    loss at its default clip (``1e-15``) spans ``[0, 34.5]``, which would make
    them 34.5 times their nominal size in log-loss units, so a log loss to be
    rescaled is clipped to ``(0.01, 0.99)`` (``[0, 4.61]``, as in Blum &
    Hardt's experiment code) unless ``score_params`` gives a clip. The
    default Ladder's step grows with the loss's range in the same way, and
    the log loss gets the same clip for it.

    Four models on 1000 labels, the step ``1/√1000 ≈ 0.032``: the second is
    not better by a step and leaves the release where it was, the third is,
    and every release is a multiple of the step.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 1000)
    >>> guard = GuardedHoldout(y, score="zero_one")
    >>> def model(error_rate):       # labels flipped at a given rate
    ...     return np.where(rng.random(1000) < error_rate, 1 - y, y)
    >>> [round(guard.score(model(p)), 4) for p in (0.30, 0.29, 0.20, 0.31)]
    [0.3162, 0.3162, 0.1897, 0.1897]
    >>> guard.best.index, len(guard.history), bool(guard.mechanism.eta == 1 / np.sqrt(1000))
    (3, 4, True)
    """

    def __init__(
        self,
        y_true: Any,
        *,
        score: str = "zero_one",
        mechanism: str | Mechanism = DEFAULT_MECHANISM,
        mechanism_params: Mapping[str, Any] | None = None,
        score_params: Mapping[str, Any] | None = None,
        random_state: RandomState = None,
    ):
        if not isinstance(score, str):
            raise TypeError(f"score must be a loss or metric name, got {type(score).__name__}")
        if score_params is not None and not isinstance(score_params, Mapping):
            raise TypeError(f"score_params must be a mapping, got {type(score_params).__name__}")
        self._labels = _checked_labels(y_true)
        self._score_name = score
        self._score_params = dict(score_params or {})
        self._mechanism = self._build(mechanism, mechanism_params, random_state)
        self._loss, self._rescale = self._choose_loss()
        self._history: list[HoldoutAnswer] = []

    # ------------------------------------------------------------------ build
    def _build(
        self,
        mechanism: str | Mechanism,
        params: Mapping[str, Any] | None,
        random_state: RandomState,
    ) -> Mechanism:
        n = self._labels.shape[0]
        if isinstance(mechanism, Mechanism):
            if params:
                raise ValueError("mechanism_params apply to a mechanism given by name")
            if random_state is not None:
                raise ValueError(
                    "random_state applies to a mechanism given by name; "
                    "an instance already has its own"
                )
            if mechanism.n_submissions:
                raise ValueError(
                    f"mechanism has scored {mechanism.n_submissions} submissions: give a fresh one"
                )
            if isinstance(mechanism, MetricMechanism):
                if not np.array_equal(mechanism.y_true, self._labels):
                    raise ValueError("the mechanism holds labels that differ from y_true")
                if mechanism.metric.name != self._score_name:
                    raise ValueError(
                        f"the mechanism scores {mechanism.metric.name!r}, not {self._score_name!r}"
                    )
            elif mechanism.n is not None and mechanism.n != n:
                raise ValueError(f"the mechanism is for n={mechanism.n} points, y_true has {n}")
            return mechanism
        if not isinstance(mechanism, str):
            raise TypeError(
                f"mechanism must be a name or a Mechanism, got {type(mechanism).__name__}"
            )
        built = dict(params or {})
        built["random_state"] = random_state
        klass = MECHANISMS.get(mechanism)
        if klass is not None and klass.input_kind == "predictions":
            built.update(metric=self._score_name, y_true=self._labels)
        else:
            built["n"] = n
        if mechanism == Ladder.name and built.get("eta") is None:
            built["eta"] = self._default_step(n)  # absent or None: the default, as competitions
        return make_mechanism(mechanism, **built)

    def _default_step(self, n: int) -> float:
        """:func:`default_step` for this score; a log loss without a clip gets
        the Ladder authors' (kept in the parameters, as a saved state needs it)."""
        name = self._score_name
        if name not in LOSSES:
            raise ValueError(
                f"Ladder scores per-sample losses; score {name!r} is not a loss "
                f"(losses: {', '.join(sorted(LOSSES))})"
            )
        if name in _LOG_LOSSES and "clip" not in self._score_params:
            self._score_params = {**self._score_params, "clip": LADDER_CLIP}
        return default_step(n, score=name, score_params=self._score_params)

    def _choose_loss(self) -> tuple[Loss | None, tuple[float, float] | None]:
        name, mechanism = self._score_name, self._mechanism
        if mechanism.input_kind == "predictions":
            if name not in METRICS:
                raise ValueError(
                    f"{type(mechanism).__name__} scores predictions with a metric; "
                    f"score {name!r} is not one (metrics: {', '.join(sorted(METRICS))})"
                )
            if self._score_params:
                raise ValueError("score_params apply to a loss, not to a metric")
            return None, None
        if name not in LOSSES:
            raise ValueError(
                f"{type(mechanism).__name__} scores per-sample losses; score {name!r} is not "
                f"a loss (losses: {', '.join(sorted(LOSSES))})"
            )
        params = self._score_params
        loss = get_loss(name, **params)
        lo, hi = loss.bounds
        low, high = mechanism.loss_bounds
        if lo >= low and hi <= high:
            return loss, None
        if name in _LOG_LOSSES and "clip" not in params:
            # Kept in the parameters, so that a saved state names the clip it ran with.
            self._score_params = params = {**params, "clip": LADDER_CLIP}
            loss = get_loss(name, **params)
            lo, hi = loss.bounds
        if not math.isfinite(hi):
            raise ValueError(
                f"{type(mechanism).__name__} needs losses in [{low:g}, {high:g}]; the loss "
                f"{name!r} is unbounded: choose a bounded loss"
            )
        return loss.rescaled(), (lo, hi)

    # ----------------------------------------------------------------- public
    @property
    def mechanism(self) -> Mechanism:
        """The guarding mechanism (its releases are what :meth:`score` returns)."""
        return self._mechanism

    @property
    def direction(self) -> Direction:
        """Which way the scores improve."""
        return LOSSES[self._score_name].direction if self._loss else self._mechanism.direction

    @property
    def n(self) -> int:
        """The number of validation points."""
        return int(self._labels.shape[0])

    @property
    def history(self) -> tuple[HoldoutAnswer, ...]:
        """Every query answered, in order."""
        return tuple(self._history)

    @property
    def best(self) -> HoldoutAnswer | None:
        """The query the guard holds as best; ``None`` before any.

        On a ladder (a mechanism whose release states the current best) it is
        the latest query the mechanism took as its new best: the releases
        after a query that was not taken are the best's score (under
        LadderBoot a fresh estimate of it), not that query's, so the best
        release can belong to any query (Blum & Hardt 2015, Fig. 1-2;
        Chaibub Neto et al. 2016, Alg. 4). Otherwise, and for a history saved
        before the decisions were kept, the query with the best released
        score (the first among equals).
        """
        if self._mechanism.release_is_current_best:
            taken = [answer for answer in self._history if answer.improved]
            if taken:
                return taken[-1]
        best: HoldoutAnswer | None = None
        for answer in self._history:
            if not math.isfinite(answer.score):
                continue  # a NaN release (a model's NaN loss) is never the best
            if best is None or self.direction.better(answer.score, best.score):
                best = answer
        return best

    def score(
        self, predictions: Any, *, train_score: float | None = None, label: str | None = None
    ) -> float:
        """The released score of ``predictions`` on the validation labels.

        ``train_score`` is the same loss measured on the training set, for a
        mechanism that takes it (Thresholdout); ``label`` names the model in
        :attr:`history`. Invalid input raises ``ValueError`` (or ``TypeError``)
        and changes nothing; a spent Thresholdout raises
        :class:`~ladderboard.mechanisms.BudgetExhaustedError`.
        """
        if label is not None and not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        takes_train = self._mechanism.takes_training_estimate
        if train_score is not None and not takes_train:
            raise ValueError(
                f"train_score is for a mechanism that takes a training estimate; "
                f"{type(self._mechanism).__name__} does not"
            )
        vector = np.asarray(predictions)
        if self._loss is None:
            release = self._mechanism.submit(vector)
        else:
            losses = self._loss(self._labels, vector)
            if takes_train:
                assert isinstance(self._mechanism, Thresholdout | GaussianThresholdout)
                release = self._mechanism.submit(losses, train_value=self._to_unit(train_score))
            else:
                release = self._mechanism.submit(losses)
        released = self._from_unit(release.score)
        digest = hashlib.sha256(np.ascontiguousarray(vector).tobytes()).hexdigest()
        self._history.append(
            HoldoutAnswer(
                index=release.index,
                score=released,
                train_score=None if train_score is None else float(train_score),
                digest=digest,
                label=label,
                improved=bool(release.improved),
            )
        )
        return released

    def score_estimator(
        self,
        estimator: Any,
        X: Any,
        *,
        method: str | None = None,
        X_train: Any = None,
        y_train: Any = None,
        label: str | None = None,
    ) -> float:
        """:meth:`score` of a fitted model's predictions on the validation ``X``.

        Any object with ``predict`` (or ``predict_proba``) will do. ``method``
        names the one to call; by default ``predict_proba`` when the score
        needs probabilities (its second column for a binary score), else
        ``predict``. ``X_train`` and ``y_train`` give Thresholdout its
        training estimate: the same loss of the same model on them.
        """
        if (X_train is None) != (y_train is None):
            raise ValueError("give X_train and y_train together, or neither")
        train_score = None
        if X_train is not None:
            if self._loss is None or not self._mechanism.takes_training_estimate:
                raise ValueError(
                    f"X_train and y_train give a training estimate, which "
                    f"{type(self._mechanism).__name__} does not take"
                )
            # The same loss, with the same parameters (the clip), as the validation rows'.
            train_losses = get_loss(self._score_name, **self._score_params)(
                y_train, self._predict(estimator, X_train, method)
            )
            train_score = float(np.mean(train_losses))
        predictions = self._predict(estimator, X, method)
        return self.score(predictions, train_score=train_score, label=label)

    def answers_left(self, *, eps: float = 0.05, beta: float = 0.05) -> int | None:
        """How many more queries the mechanism's guarantee covers.

        Thresholdout: its budget left (answers from the holdout; answers with
        the training estimate cost nothing). The fixed-step Ladder: the
        submissions for which Blum & Hardt 2015, Thm 3.1 keeps the released
        best within ``eps`` plus the step of the true best with probability
        ``1 − beta`` (:func:`~ladderboard.analysis.ladder_max_submissions`),
        less those made. ``None`` for a mechanism without such a count (the
        parameter-free Ladder among them: the theorem is for a fixed step).
        """
        mechanism = self._mechanism
        if isinstance(mechanism, Thresholdout):
            return mechanism.budget_left
        if isinstance(mechanism, Ladder):
            covered = ladder_max_submissions(self.n, eps, mechanism.eta, beta)
            return max(0, covered - mechanism.n_submissions)
        return None

    # ----------------------------------------------------------------- state
    def get_state(self, *, secrets: bool = False) -> dict[str, Any]:
        """A JSON-serialisable snapshot: the mechanism's state and the history.

        The labels (and a stochastic mechanism's key) are left out unless
        ``secrets=True``; :meth:`from_state` takes them back.
        """
        return {
            "format": STATE_FORMAT,
            "score": self._score_name,
            "score_params": {
                k: list(v) if isinstance(v, tuple) else v for k, v in self._score_params.items()
            },
            "labels": encode_array(np.asarray(self._labels)) if secrets else None,
            "mechanism": self._mechanism.get_state(secrets=secrets),
            "history": [
                {**asdict(answer), "score": encode_float(answer.score)} for answer in self._history
            ],
        }

    @classmethod
    def from_state(
        cls,
        state: Mapping[str, Any],
        *,
        y_true: Any = None,
        key: str | KeyedStream | None = None,
    ) -> GuardedHoldout:
        """Rebuild a guarded holdout from :meth:`get_state`; it continues bit
        for bit. A state saved without secrets needs ``y_true`` (and ``key``
        for a stochastic mechanism); a secret that differs from the saved one
        is an error."""
        if not isinstance(state, Mapping) or state.get("format") != STATE_FORMAT:
            raise ValueError("state must be a dict produced by GuardedHoldout.get_state()")
        saved = state["labels"]
        if saved is None and y_true is None:
            raise ValueError("the state holds no labels (saved without secrets): pass y_true=")
        labels = _checked_labels(decode_array(saved) if saved is not None else y_true)
        if (
            saved is not None
            and y_true is not None
            and not np.array_equal(labels, np.asarray(y_true, dtype=np.float64))
        ):
            raise ValueError("the labels given differ from the labels saved in the state")
        mechanism = Mechanism.from_state(state["mechanism"], key=key, y_true=labels)
        guard = cls.__new__(cls)
        guard._labels, guard._score_name, guard._mechanism = labels, state["score"], mechanism
        if "score_params" in state:
            guard._score_params = {
                k: tuple(v) if k == "clip" else v for k, v in state["score_params"].items()
            }
        else:
            # Saved before the parameters were kept: the loss had its default clip.
            guard._score_params = {"clip": KAGGLE_CLIP} if state["score"] in _LOG_LOSSES else {}
        guard._loss, guard._rescale = guard._choose_loss()
        guard._history = [
            HoldoutAnswer(**{**answer, "score": float(answer["score"])})
            for answer in state["history"]
        ]
        return guard

    # --------------------------------------------------------------- helpers
    def _to_unit(self, train_score: float | None) -> float | None:
        if train_score is None or self._rescale is None:
            return train_score
        lo, hi = self._rescale
        return (float(train_score) - lo) / (hi - lo)

    def _from_unit(self, released: float) -> float:
        if self._rescale is None:
            return released
        lo, hi = self._rescale
        return lo + released * (hi - lo)

    def _predict(self, estimator: Any, X: Any, method: str | None) -> np.ndarray:
        needs_probabilities = (
            LOSSES.get(self._score_name) or METRICS[self._score_name]
        ).requires_probabilities
        name = method or ("predict_proba" if needs_probabilities else "predict")
        predict = getattr(estimator, name, None)
        if not callable(predict):
            raise TypeError(f"estimator has no {name}() method: {type(estimator).__name__}")
        out = np.asarray(predict(X))
        binary = not self._score_name.startswith("multiclass")
        if name == "predict_proba" and binary and out.ndim == 2 and out.shape[1] == 2:
            out = out[:, 1]
        return out


def _checked_labels(y_true: Any) -> np.ndarray:
    """``y_true`` as a read-only float64 copy: 1-D, finite, at least 2 labels."""
    labels = np.array(y_true, dtype=np.float64)
    if labels.ndim != 1 or labels.shape[0] < 2:
        raise ValueError(f"y_true must be a 1-D vector of at least 2 labels, got {labels.shape}")
    if not np.isfinite(labels).all():
        raise ValueError("y_true must be finite")
    labels.setflags(write=False)
    return labels
