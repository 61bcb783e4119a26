"""A competition's configuration: what is scored, by which mechanism, on which
board, with which quotas and deadline."""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ladderboard._validation import check_int
from ladderboard.direction import LOWER_IS_BETTER, Direction
from ladderboard.losses import LOSSES, METRICS, get_loss, get_metric
from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS
from ladderboard.mechanisms.parameters import complete_params
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.text import check_json, is_slug

__all__ = [
    "BOARD_MODES",
    "MAX_PRECISION",
    "REGISTRATIONS",
    "VISIBILITIES",
    "CompetitionConfig",
    "Scoring",
]

BOARD_MODES = ("per-team", "per-rank")
VISIBILITIES = ("public", "unlisted", "private")
"""Who sees a competition: anyone and listed; anyone with its address, not
listed; only its teams, registered accounts and organisers."""
REGISTRATIONS = ("list", "open", "invitation")
"""How participants come in: on the organiser's list (teams and tokens the
organiser issues), by joining with an account, or by joining with an
invitation code."""
MAX_PRECISION = 15
"""The most decimals a board shows: a double carries about 15 significant
digits, and any beyond show rounding, not the score."""


@dataclass(frozen=True)
class Scoring:
    """How predictions become a score: a per-sample loss for the loss-based
    mechanisms (the score is its mean, lower is better), or a metric for the
    metric-based ones (its own direction).

    Losses outside ``[0, 1]`` are rescaled into it by their declared bounds
    for the Shaky Ladder, which needs them there; the released and private
    scores are then on that rescaled scale too.
    """

    name: str
    params: dict[str, Any]
    kind: str  # "loss" or "metric"
    rescale: bool = False

    @property
    def direction(self) -> Direction:
        """Which way the score improves: the metric's, or lower for a loss."""
        return get_metric(self.name).direction if self.kind == "metric" else LOWER_IS_BETTER

    @property
    def requires_probabilities(self) -> bool:
        if self.kind == "metric":
            return get_metric(self.name).requires_probabilities
        return get_loss(self.name, **self.params).requires_probabilities

    @property
    def takes_labels(self) -> bool:
        """Whether predictions are class labels, each right or wrong
        (``zero_one``, ``accuracy``): a file's predictions must then be
        classes of the solution."""
        if self.kind == "metric":
            return get_metric(self.name).takes_labels
        return get_loss(self.name, **self.params).takes_labels

    def loss(self):
        loss = get_loss(self.name, **self.params)
        return loss.rescaled() if self.rescale else loss

    def metric(self):
        return get_metric(self.name)


def _utc(value: datetime | str | None, name: str = "deadline") -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{name} must be an ISO date and time, got {value!r}") from None
    if not isinstance(value, datetime):
        raise TypeError(f"{name} must be a datetime or ISO string, got {type(value).__name__}")
    if value.tzinfo is None:
        raise ValueError(f"{name} must carry a time zone (UTC), got {value.isoformat()}")
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:00-05:00 is past the last datetime in UTC
        raise ValueError(f"{name} {value.isoformat()} is out of range") from None


def _when(value: datetime) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC"


CALENDAR = ("opens_at", "freeze_at", "deadline")
"""The competition's dates, in the order they must come."""

DATES = (*CALENDAR, "merger_deadline")
"""Every date of a configuration; the merger deadline comes before the
deadline, whatever the other dates."""


@dataclass(frozen=True)
class CompetitionConfig:
    """Everything an organiser chooses when creating a competition.

    Parameters
    ----------
    score : str
        A loss of :data:`ladderboard.losses.LOSSES` (``zero_one``, ``squared``,
        ``log_loss``, ...) for the loss-based mechanisms, or a metric of
        :data:`ladderboard.losses.METRICS` for the Bayesian-bootstrap ones.
    mechanism : str
        A name of :data:`ladderboard.mechanisms.MECHANISMS`.
    mechanism_params : dict
        Keyword parameters of the mechanism (``n``, the labels and the random
        key are supplied by the engine).
    score_params : dict
        Keyword parameters of the loss (for example ``clip`` of the log loss).
    board : {"per-team", "per-rank"}
    ranks : int
        Ranks of a per-rank board (see :mod:`ladderboard.rules.rank_board`).
    daily_quota, total_quota, invalid_quota : int or None
        Valid submissions per team per UTC day and in all; invalid ones in all.
    deadline : datetime (UTC) or None
    auto_publish : bool
        Publish the private board and reveal the audit key at the deadline;
        by default they wait for the organiser, who looks at the private
        board first.
    n_selections : int
        Final submissions a team may select (default 2).
    precision : int
        Decimals shown on the boards, at most :data:`MAX_PRECISION`.
    max_bytes : int
        Largest submission file accepted, compressed or not.
    opens_at : datetime (UTC) or None
        When submissions open (before the deadline); until then teams may
        register, sign in and download the data, and a file is refused
        without spending anything. ``None``: open from the creation.
    freeze_at : datetime (UTC) or None
        When the public board freezes (after ``opens_at``, before the
        deadline): from then until the close, participants and anonymous
        readers see the board as it stood at the freeze, while submissions
        still count and each team still reads its own releases.
    late_submissions : bool
        Whether, once the private board is published, teams may still send
        files, scored exactly on the public and private rows (no mechanism)
        and shown on a board of their own, never on the final ranking.
    visibility : {"public", "unlisted", "private"}
        Who sees the competition (:data:`VISIBILITIES`).
    registration : {"list", "open", "invitation"}
        How participants come in (:data:`REGISTRATIONS`); ``"list"`` is the
        organiser's own list of teams, each with the token the organiser
        hands out.
    max_team_size : int or None
        Most members of a team of accounts; ``None``: no limit.
    merger_deadline : datetime (UTC) or None
        Last moment two teams may merge (before the deadline); ``None``:
        until the close.
    phase_of : str or None
        The slug of the first phase of the series this competition is a
        later phase of (:mod:`ladderboard.engine.phases`): it shares that
        phase's teams, and its own holdout, calendar, quotas and boards are
        its own. ``None``: a competition of its own (or a series' first
        phase). The series' registration, team size and merger deadline are
        its first phase's.

    >>> config = CompetitionConfig(score="zero_one", mechanism="parameter-free-ladder")
    >>> config.scoring().kind, config.board
    ('loss', 'per-team')
    >>> CompetitionConfig(score="pearson", mechanism="ladder", mechanism_params={"eta": 0.01})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: mechanism 'ladder' scores per-sample losses; score 'pearson' is a metric ...
    """

    score: str
    mechanism: str
    mechanism_params: dict[str, Any] = field(default_factory=dict)
    score_params: dict[str, Any] = field(default_factory=dict)
    board: str = "per-team"
    ranks: int = 10
    daily_quota: int | None = 5
    total_quota: int | None = None
    invalid_quota: int | None = 20
    deadline: datetime | None = None
    auto_publish: bool = False
    n_selections: int = 2
    precision: int = 5
    # ladderboard.files.DEFAULT_MAX_BYTES: rules may not import files (the
    # layers of tests/test_layers.py), so the value is written here too and
    # tests/server/test_settings_and_app.py holds the two equal.
    max_bytes: int = 50 * 2**20
    opens_at: datetime | None = None
    freeze_at: datetime | None = None
    late_submissions: bool = False
    visibility: str = "public"
    registration: str = "list"
    max_team_size: int | None = None
    merger_deadline: datetime | None = None
    phase_of: str | None = None

    def __post_init__(self) -> None:
        if self.mechanism not in MECHANISMS:
            known = ", ".join(sorted(MECHANISMS))
            raise ValueError(f"unknown mechanism {self.mechanism!r}; known: {known}")
        if self.mechanism not in COMPETITION_MECHANISMS:
            raise ValueError(
                f"mechanism {self.mechanism!r} answers each submission with the submitter's "
                "training-set estimate of its loss, which a leaderboard submission does not "
                "carry: it guards a validation set (ladderboard.holdout.GuardedHoldout), not a "
                f"competition (competitions: {', '.join(sorted(COMPETITION_MECHANISMS))})"
            )
        if self.board not in BOARD_MODES:
            raise ValueError(f"board must be one of {BOARD_MODES}, got {self.board!r}")
        for name in ("daily_quota", "total_quota", "invalid_quota"):
            value = getattr(self, name)
            if value is not None:
                check_int(name, value, 1)
        if not isinstance(self.auto_publish, bool):
            raise ValueError(f"auto_publish must be true or false, got {self.auto_publish!r}")
        check_int("n_selections", self.n_selections, 1)
        check_int("ranks", self.ranks, 1)
        check_int("precision", self.precision, 0)
        if self.precision > MAX_PRECISION:
            raise ValueError(
                f"precision must be at most {MAX_PRECISION} (the decimals a float carries), "
                f"got {self.precision}"
            )
        check_int("max_bytes", self.max_bytes, 1)
        for name in ("mechanism_params", "score_params"):
            value = getattr(self, name)
            if not isinstance(value, dict):
                raise ValueError(f"{name} must be a JSON object, got {type(value).__name__}")
            check_json(name, value)
        for name in DATES:
            object.__setattr__(self, name, _utc(getattr(self, name), name))
        self._check_calendar()
        if self.visibility not in VISIBILITIES:
            raise ValueError(f"visibility must be one of {VISIBILITIES}, got {self.visibility!r}")
        if self.registration not in REGISTRATIONS:
            raise ValueError(
                f"registration must be one of {REGISTRATIONS}, got {self.registration!r}"
            )
        if self.max_team_size is not None:
            check_int("max_team_size", self.max_team_size, 1)
        if self.phase_of is not None and not is_slug(self.phase_of):
            raise ValueError(f"phase_of must be a competition's slug, got {self.phase_of!r}")
        if not isinstance(self.late_submissions, bool):
            raise ValueError(
                f"late_submissions must be true or false, got {self.late_submissions!r}"
            )
        forbidden = {"n", "y_true", "metric", "random_state"} & set(self.mechanism_params)
        if forbidden:
            raise ValueError(
                f"mechanism_params must not set {sorted(forbidden)}: the engine supplies them"
            )
        # Checks the score against the mechanism, once: a configuration is
        # frozen, and its scoring is asked for on every submission.
        object.__setattr__(self, "_scoring", self._scoring_of())

    def _check_calendar(self) -> None:
        """The dates come in order: the opening, the freeze, the deadline."""
        dates = [(name, getattr(self, name)) for name in CALENDAR]
        given = [(name, value) for name, value in dates if value is not None]
        for (first, early), (then, late) in itertools.pairwise(given):
            if not early < late:
                raise ValueError(
                    f"{first} ({_when(early)}) must come before {then} ({_when(late)})"
                )
        merger, deadline = self.merger_deadline, self.deadline
        if merger is not None and deadline is not None and not merger < deadline:
            raise ValueError(
                f"merger_deadline ({_when(merger)}) must come before deadline ({_when(deadline)})"
            )

    def scoring(self) -> Scoring:
        """How this competition's predictions become a score."""
        return self._scoring  # type: ignore[attr-defined]  # set by __post_init__

    def _scoring_of(self) -> Scoring:
        klass = MECHANISMS[self.mechanism]
        if klass.input_kind == "losses":
            if self.score not in LOSSES:
                kind = "a metric" if self.score in METRICS else "unknown"
                raise ValueError(
                    f"mechanism {self.mechanism!r} scores per-sample losses; score "
                    f"{self.score!r} is {kind} (losses: {', '.join(sorted(LOSSES))})"
                )
            lo, hi = get_loss(self.score, **self.score_params).bounds
            rescale = klass.loss_bounds != (-math.inf, math.inf) and not (
                lo >= klass.loss_bounds[0] and hi <= klass.loss_bounds[1]
            )
            return Scoring(self.score, dict(self.score_params), "loss", rescale)
        if self.score not in METRICS:
            raise ValueError(
                f"mechanism {self.mechanism!r} scores predictions with a metric; score "
                f"{self.score!r} is not one (metrics: {', '.join(sorted(METRICS))})"
            )
        if self.score_params:
            raise ValueError("score_params apply to losses only")
        return Scoring(self.score, {}, "metric")

    def explicit(self, n_public: int) -> CompetitionConfig:
        """This configuration with every mechanism parameter written out for
        a holdout of ``n_public`` public labels: those left out (absent or
        ``None``) take the recommended setting's values on the recommended
        mechanism (:meth:`ladderboard.recommended.Recommended.fill`), then
        the mechanism's own defaults (:func:`complete_params`), so that what
        a competition stores says in full what runs.

        >>> CompetitionConfig(score="zero_one", mechanism="ladder-boot").explicit(
        ...     4000).mechanism_params
        {'alpha': 0.15, 'b': 100, 'floor': None, 'precision': None}
        >>> CompetitionConfig(score="zero_one", mechanism=RECOMMENDED.mechanism).explicit(
        ...     4000).mechanism_params == RECOMMENDED.params_at(4000)
        True
        >>> CompetitionConfig(score="log_loss", score_params={"clip": (0.01, 0.99)},
        ...     mechanism=RECOMMENDED.mechanism).explicit(400).mechanism_params
        {'eta': 0.23}
        >>> CompetitionConfig(score="squared", mechanism=RECOMMENDED.mechanism).explicit(
        ...     400)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: the default ... the loss 'squared' is unbounded: give eta in the score's ...
        """
        filled = RECOMMENDED.fill(
            self.mechanism, self.mechanism_params, n_public, scale=self._default_scale()
        )
        params = complete_params(self.mechanism, filled)
        if params == self.mechanism_params:
            return self
        return replace(self, mechanism_params=params)

    def _default_scale(self) -> float:
        """The range of the competition's loss, in whose units the recommended
        setting's steps are written (``1`` for a loss in ``[0, 1]`` and for a
        metric); a step left to the default on an unbounded loss has no scale
        and is refused."""
        if self.mechanism != RECOMMENDED.mechanism or self.score not in LOSSES:
            return 1.0
        if all(self.mechanism_params.get(name) is not None for name in RECOMMENDED.per_root_n):
            return 1.0
        lo, hi = get_loss(self.score, **self.score_params).bounds
        if not math.isfinite(hi - lo):
            names = ", ".join(RECOMMENDED.per_root_n)
            raise ValueError(
                f"the default {RECOMMENDED.label} takes its step in units of the loss's range, "
                f"and the loss {self.score!r} is unbounded: give {names} in the score's units, "
                "or choose another mechanism"
            )
        return hi - lo

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in DATES:
            value = getattr(self, name)
            data[name] = None if value is None else value.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CompetitionConfig:
        return cls(**data)
