"""Which mechanisms a replay runs, with which parameters, checked before any work.

``--mechanism NAME`` names a mechanism a competition can run
(:data:`ladderboard.mechanisms.COMPETITION_MECHANISMS`), or ``all`` for every
one with its defaults. ``--param KEY=VALUE`` goes to every chosen mechanism whose
constructor takes ``KEY``; a key that none takes, or one the replay supplies
itself (``n``, ``y_true``, ``metric``, ``random_state``), is an error. Values
are read by :func:`ladderboard.terminal.parse_value`, as every command reads
them: JSON, ``true``/``false``, ``none``, else as text.

Defaults the registry cannot give: the fixed-step :class:`~ladderboard.mechanisms.Ladder`
has no default ``eta``; the replay uses ``1/√n`` (``n`` the public rows, the
Kaggle rounding of the Ladder paper's Fig. 3), far below the theory's
``(log(kn)/n)^{1/3}``, which on a log-loss board would freeze every team after
its first submission.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ladderboard.terminal import parse_params, parse_value

if TYPE_CHECKING:
    from ladderboard.mechanisms import Mechanism

__all__ = ["MechanismChoice", "choose_mechanisms", "parse_params", "parse_value"]

SUPPLIED = ("n", "y_true", "metric", "random_state")
"""Parameters the replay supplies; ``--param`` may not set them."""


def _keywords(klass: type[Mechanism]) -> set[str]:
    signature = inspect.signature(klass.__init__)
    return {
        name
        for name, p in signature.parameters.items()
        if p.kind is p.KEYWORD_ONLY and name not in SUPPLIED
    }


@dataclass(frozen=True)
class MechanismChoice:
    """A registered mechanism and the parameters given to it."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def klass(self) -> type[Mechanism]:
        from ladderboard.mechanisms import MECHANISMS

        return MECHANISMS[self.name]

    @property
    def takes_predictions(self) -> bool:
        return self.klass.input_kind == "predictions"

    @property
    def test_source(self) -> str:
        """The mechanism whose test this one runs, draw for draw, given the same
        random stream: BayesBootLadderBoot runs BayesBootLadder's (Chaibub Neto
        et al. 2016, Alg. 6 is Alg. 5 with another release). A replay derives
        both from one stream, so they accept the same submissions and differ
        only in what they release; and one may take the other's decisions."""
        return _TEST_SOURCES.get(self.name, self.name)

    def test_params(self) -> dict[str, Any]:
        """The parameters the test depends on (all but the release's)."""
        return {k: v for k, v in self.params.items() if k not in _RELEASE_PARAMS}

    def build(
        self,
        *,
        n: int,
        y_true: Any = None,
        metric: str | None = None,
        random_state=None,
        decisions: Any = None,
    ):
        """A fresh instance for one team (``n`` public rows; labels for metric-based ones).

        With ``decisions`` (the team's accept flags from a run of
        :attr:`test_source` on the same stream), the instance takes them as its
        test's answers instead of drawing the same answers again.
        """
        from ladderboard.mechanisms import make_mechanism

        if decisions is not None:
            return _recorded_test(self.klass)(
                decisions=decisions, random_state=random_state, **self._params(n, y_true, metric)
            )
        return make_mechanism(
            self.name, random_state=random_state, **self._params(n, y_true, metric)
        )

    def _params(self, n: int, y_true: Any, metric: str | None) -> dict[str, Any]:
        params = dict(self.params)
        if self.name == "ladder" and "eta" not in params:
            params["eta"] = 1.0 / math.sqrt(n)
        if self.takes_predictions:
            params.update(metric=metric, y_true=y_true)
        else:
            params["n"] = n
        return params


_TEST_SOURCES = {"bayes-boot-ladder-boot": "bayes-boot-ladder"}
_RELEASE_PARAMS = {"b"}


@functools.cache
def _recorded_test(klass: type) -> type:
    """``klass`` answering its test from given decisions (see ``build``)."""

    class Recorded(klass):
        def __init__(self, *, decisions: Any, **params: Any):
            self._decisions = np.asarray(decisions, dtype=bool)
            super().__init__(**params)

        def _passes(self, predictions: np.ndarray, index: int) -> bool:
            return bool(self._decisions[index - 1])

    Recorded.__name__ = Recorded.__qualname__ = f"Recorded{klass.__name__}"
    return Recorded


def choose_mechanisms(names: Sequence[str], params: dict[str, Any]) -> list[MechanismChoice]:
    """The mechanisms named (``all`` for every one), each with the params it takes.

    >>> [(c.name, c.params) for c in choose_mechanisms(["ladder", "full-disclosure"],
    ...                                                 {"eta": 0.02})]
    [('ladder', {'eta': 0.02}), ('full-disclosure', {})]
    >>> choose_mechanisms(["ladder"], {"b": 10})
    Traceback (most recent call last):
    ValueError: param 'b' is taken by none of the mechanisms chosen (ladder)
    """
    from ladderboard.mechanisms import COMPETITION_MECHANISMS, MECHANISMS

    if not names:
        raise ValueError("mechanism: name at least one mechanism (or 'all')")
    chosen: list[str] = []
    for name in names:
        if name == "all":
            chosen.extend(COMPETITION_MECHANISMS)
        elif name in COMPETITION_MECHANISMS:
            chosen.append(name)
        elif name in MECHANISMS:
            raise ValueError(
                f"mechanism: {name!r} needs a training-set estimate with each submission, "
                "which a competition's submissions do not carry"
            )
        else:
            known = ", ".join(sorted(COMPETITION_MECHANISMS))
            raise ValueError(f"mechanism: unknown {name!r}; known: all, {known}")
    chosen = list(dict.fromkeys(chosen))
    for key in params:
        if key in SUPPLIED:
            raise ValueError(f"param {key!r} is supplied by the replay and cannot be set")
        if not any(key in _keywords(MECHANISMS[name]) for name in chosen):
            raise ValueError(
                f"param {key!r} is taken by none of the mechanisms chosen ({', '.join(chosen)})"
            )
    return [
        MechanismChoice(name, {k: v for k, v in params.items() if k in _keywords(MECHANISMS[name])})
        for name in chosen
    ]
