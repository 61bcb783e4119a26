"""The ``ladderboard demo``: a real competition, served over HTTP, with an attacker.

It starts the real server (uvicorn over the app factory, a fresh SQLite file in
a temporary folder) on a free loopback port and plays a competition on the
Wisconsin breast-cancer data bundled with scikit-learn (569 tumours, benign or
malignant): 40 % of the rows train the teams' models, the other 60 % are the
holdout, split half Public, half Private by its ``Usage`` column. The same
holdout backs two competitions scored by the 0/1 loss: one on a Kaggle board
(:class:`~ladderboard.mechanisms.FullDisclosure`) and one on the
:class:`~ladderboard.mechanisms.ParameterFreeLadder` (Blum & Hardt 2015).

Honest teams fit real scikit-learn models and improve them over several
submissions. The attacker is the threat an organiser meets in practice: a team
with a good model (the ``logistic`` team's best fit) that then climbs the
public board by perturbing it, reading nothing but its own released scores.
It submits its model, then the perturbation boosting attack (the
simulation's ``perturbation_boosting``; A2 of Hardt's 2015 blog post, "A
neat generalization", the boosting attack of Blum & Hardt 2015, Sec. 5,
started from two candidates):
``v1`` and ``v2`` are its model with the decision threshold moved by
``±PERTURBATION`` on the logit scale, so they differ exactly on the rows its
model is less than ``σ(PERTURBATION) ≈ 95 %`` sure of; ``k`` random row-wise
mixtures of the two are submitted, those the board scores better than the
mean of ``v1`` and ``v2`` are kept (on the Ladder, those that lowered its
best release, the variant of Blum & Hardt 2015, Sec. 5.1), and their per-row
majority is the final submission
(:func:`~ladderboard.attacks.generalized_boosting_attack`). It then selects,
as its one final submission, the one the public board ranks it by: its best
release, the earliest among equals.

On the Kaggle board the mixtures' exact public scores leak the public labels
of the uncertain rows, so the majority fixes its model's public mistakes and
takes first place, while on the private rows the same majority is a coin
flip that undoes correct predictions: it falls. The Ladder releases a new
score only for a significant improvement, which no random mixture makes; the
attacker learns nothing and keeps its model's place. Every submission goes
through the HTTP API with :class:`~ladderboard.client.Client`; the organiser
then closes both competitions and publishes their private boards, and both
boards of each are read back over HTTP without a token, as anyone may.

The random-guess boosting attacker (the paper's Sec. 5 experiment) is not
played: it ends last on both boards however far it climbs, which tells an
organiser nothing about who wins, and it would double the demo's time.

Each competition has an overview and rules in Markdown and the data a team
needs (``train.csv``, ``test.csv``, and the generated sample submission).
With ``ladderboard demo --serve`` a third competition on the Ladder is left
open, with the honest teams' submissions on its board and a fresh team for
whoever browses: to download the data, submit, read what the board did with
the score, and choose final submissions.

The data, the files, the honest teams' models and the attacker's are in
:mod:`ladderboard.demo.data`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rich import box
from rich.table import Table

from ladderboard._validation import check_int
from ladderboard.client import Client
from ladderboard.demo.data import (
    HONEST_TEAMS,
    Holdout,
    attacker_logits,
    holdout,
    honest_predictions,
    predictions_csv,
)
from ladderboard.random import KeyedStream

__all__ = [
    "ATTACKER",
    "BOARDS",
    "HONEST_TEAMS",
    "NEWCOMER",
    "OPEN_DAILY_QUOTA",
    "OPEN_SLUG",
    "PERTURBATION",
    "DemoResult",
    "OpenCompetition",
    "run_demo",
]

BOARDS = {"kaggle": "full-disclosure", "ladder": "parameter-free-ladder"}
"""The two competitions, by slug, and their mechanisms."""

BOARD_TITLES = {"kaggle": "FullDisclosure", "ladder": "ParameterFreeLadder"}

ATTACKER = "attacker"

PERTURBATION = 3.0
"""How far the attacker moves its model's decision threshold either way, on
the logit scale: its perturbations change the rows it is less than
``σ(3) ≈ 95 %`` sure of (about a fifth of the holdout). With the default
budget this puts it first on the Kaggle board's public side and fourth or
last of five on its private side for each seed from 0 to 4, while the
Ladder releases none of its perturbations. A smaller shift leaves some of
its model's mistakes outside the perturbed rows, and with few rows a lucky
random mixture can pass the Ladder's test; a larger one perturbs more rows
than the budget's majority can sort out."""

OPEN_SLUG = "breast-cancer"
"""The competition ``ladderboard demo --serve`` leaves open, on the Ladder."""

NEWCOMER = "you"
"""The open competition's team without a submission, for whoever browses."""

OPEN_DAILY_QUOTA = 5

OVERVIEW = """\
Predict whether each tumour of the Wisconsin breast-cancer data is **malignant (0)** or
**benign (1)** from 30 measurements of its cell nuclei, taken from a digitised image of a
fine-needle aspirate.

- `train.csv`: {n_train} tumours, their measurements and their `target`;
- `test.csv`: {n_test} other tumours, their measurements only: predict their `target`;
- `sample_submission.csv`: a submission's format, `id,target`, one row per test tumour.

The score is the **0/1 error**, the fraction of test tumours misclassified: lower is
better. Half of the test rows, chosen at random, make the public board, scored as you
submit; the other half make the private board, which decides the final ranking once the
organiser publishes it after the close.

{board}
"""

BOARD_TEXTS = {
    "full-disclosure": "This board is Kaggle's (*FullDisclosure*): each submission's public "
    "score is shown exactly. A team that perturbs a good model at random and keeps the "
    "perturbations the board liked climbs it by fitting the public rows, not the task: watch "
    "the `attacker`.",
    "parameter-free-ladder": "This board is the *Ladder* (Blum & Hardt 2015): a new score is "
    "shown only when a submission beats the team's best by more than the holdout's noise; "
    "otherwise the board shows the best score again. Random perturbations do not climb it.",
}

RULES = """\
1. One team per person or group; do not share predictions or tokens between teams.
2. {quota}; a file the server refuses does not count, but at most 20 refused files
   are accepted in all.
3. Choose up to 2 final submissions; without a choice, your best public ones count.
4. The organiser publishes the private board after the close, with the key that lets
   anyone holding the store check every released score (`ladderboard verify`).
"""


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's place on one competition's public and private boards."""

    public_rank: int
    public: float
    private_rank: int
    private: float
    entries: int


@dataclass(frozen=True, slots=True)
class DemoResult:
    """The boards of both competitions, read back over HTTP once published.

    ``standings[slug][team]`` is the team's :class:`Standing`.
    ``start_public[slug]`` is the score the board released for the
    attacker's unperturbed model, its first submission there, and
    ``start_private`` that model's error on the private rows (the
    organiser's knowledge: the attacker never sees it).
    """

    n_train: int
    n_public: int
    n_private: int
    k: int
    seed: int
    teams: tuple[str, ...]
    standings: dict[str, dict[str, Standing]]
    start_public: dict[str, float]
    start_private: float


class HttpOracle:
    """The board as the attacker sees it: a submission over HTTP, a released score.

    The server refuses a file the team already sent (409 duplicate), as when
    the majority is one of the candidates: the attacker then reads the score
    it was released before, from its own notes. ``best_id`` is the
    submission with the lowest release, the earliest among equals: the one
    the public board ranks the team by.
    """

    def __init__(
        self,
        client: Client,
        slug: str,
        ids: np.ndarray,
        on_submit: Callable[[], None] | None = None,
    ):
        self.client, self.slug, self.ids = client, slug, ids
        self.greater_is_better = False
        self.submissions = 0
        self.best_id: int | None = None
        self._best = float("inf")
        self._released: dict[bytes, float] = {}
        self._on_submit = on_submit

    def submit(self, prediction: Any) -> float:
        if self._on_submit is not None:
            self._on_submit()
        data = predictions_csv(self.ids, np.asarray(prediction))
        if data not in self._released:
            self.submissions += 1
            answer = self.client.submit(self.slug, data)
            self._released[data] = float(answer["public_score"])
            if self._released[data] < self._best:
                self._best, self.best_id = self._released[data], int(answer["id"])
        return self._released[data]


def _checked(k: int, n_teams: int | None, seed: int) -> tuple[int, int, int]:
    k = check_int("k", k, 1)
    seed = check_int("seed", seed, 0)
    n_teams = len(HONEST_TEAMS) if n_teams is None else check_int("n_teams", n_teams, 1)
    if n_teams > len(HONEST_TEAMS):
        raise ValueError(f"n_teams must be at most {len(HONEST_TEAMS)}, got {n_teams}")
    return k, n_teams, seed


def create_competition(
    client: Client,
    slug: str,
    mechanism: str,
    data: Holdout,
    *,
    title: str,
    daily_quota: int | None,
) -> None:
    """Create a competition on the holdout with its overview, rules and data files."""
    quota = (
        "No daily limit in this demo (the attacker needs hundreds of submissions)"
        if daily_quota is None
        else f"Up to {daily_quota} submissions a day (UTC)"
    )
    client.create_competition(
        slug,
        data.solution.to_csv(),
        score="zero_one",
        mechanism=mechanism,
        title=title,
        description=OVERVIEW.format(
            n_train=len(data.y_train), n_test=len(data.test_ids), board=BOARD_TEXTS[mechanism]
        ),
        rules=RULES.format(quota=quota),
        daily_quota="none" if daily_quota is None else daily_quota,
        data_files=data.data_files(),
    )


def play(
    client: Client,
    data: Holdout,
    honest: dict[str, list[tuple[str, bytes]]],
    *,
    k: int = 400,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> DemoResult:
    """Create both competitions on the server behind ``client`` (organiser),
    play them, close them and publish their private boards; read both boards
    of each back as anyone may, without a token.

    The attacker makes ``k + 4`` submissions on each board (fewer when a
    file repeats one it sent): its model, the two shifted candidates, ``k``
    mixtures and their majority; the same draws on both boards.
    ``progress(done, total)``, when given, is called after each submission
    (the honest teams' files and the attacker's, on both boards).
    """
    from ladderboard.attacks import generalized_boosting_attack

    total = len(BOARDS) * (sum(len(files) for files in honest.values()) + k + 4)
    done = 0

    def step() -> None:
        nonlocal done
        done = min(done + 1, total)
        if progress is not None:
            progress(done, total)

    if progress is not None:
        progress(0, total)

    tokens: dict[str, str] = {}
    for slug, mechanism in BOARDS.items():
        create_competition(
            client,
            slug,
            mechanism,
            data,
            title=f"Breast cancer on the {BOARD_TITLES[slug]} board",
            daily_quota=None,
        )
        for team in [*honest, ATTACKER]:
            tokens[f"{slug}/{team}"] = client.add_team(slug, team)["token"]

    for team, files in honest.items():
        for message, file in files:
            for slug in BOARDS:
                client.with_token(tokens[f"{slug}/{team}"]).submit(slug, file, message=message)
                step()

    logits = attacker_logits(data, seed)
    model = (logits > 0).astype(np.int8)
    private_rows = data.solution.private_mask
    labels = np.asarray(data.solution.targets).reshape(len(model))
    start_private = float(np.mean(model[private_rows] != labels[private_rows]))
    shifted_up = (logits > -PERTURBATION).astype(np.int8)
    shifted_down = (logits > PERTURBATION).astype(np.int8)
    attacker_key = KeyedStream.from_random_state(seed).generator(1).bytes(16)
    start_public: dict[str, float] = {}
    for slug in BOARDS:
        attacker = client.with_token(tokens[f"{slug}/{ATTACKER}"])
        oracle = HttpOracle(attacker, slug, data.test_ids, on_submit=step)
        start_public[slug] = oracle.submit(model)
        keep: Literal["mean", "improved"] = (
            "mean" if BOARDS[slug] == "full-disclosure" else "improved"
        )
        generalized_boosting_attack(
            oracle, shifted_up, shifted_down, k=k, random_state=attacker_key, keep=keep
        )
        assert oracle.best_id is not None  # the model's release, at least
        attacker.select(slug, [oracle.best_id])

    if progress is not None:
        progress(total, total)
    anyone = client.with_token("")
    standings: dict[str, dict[str, Standing]] = {}
    for slug in BOARDS:
        client.close(slug)
        client.publish(slug)
        boards = {board: anyone.leaderboard(slug, board)["rows"] for board in ("public", "private")}
        private = {row["team"]: row for row in boards["private"]}
        standings[slug] = {
            row["team"]: Standing(
                row["rank"],
                row["score"],
                private[row["team"]]["rank"],
                private[row["team"]]["score"],
                row["entries"],
            )
            for row in boards["public"]
        }
    return DemoResult(
        n_train=len(data.y_train),
        n_public=data.solution.n_public,
        n_private=data.solution.n_private,
        k=k,
        seed=seed,
        teams=(*honest, ATTACKER),
        standings=standings,
        start_public=start_public,
        start_private=start_private,
    )


@dataclass(frozen=True, slots=True)
class OpenCompetition:
    """The competition ``ladderboard demo --serve`` leaves open: its page, and
    the team whose token has not submitted yet."""

    slug: str
    url: str
    team: str
    token: str
    daily_quota: int


def open_competition(
    client: Client, data: Holdout, honest: dict[str, list[tuple[str, bytes]]], server_url: str
) -> OpenCompetition:
    """Create :data:`OPEN_SLUG` on the Ladder with a daily quota, the honest
    teams' submissions on its board, and the team :data:`NEWCOMER`."""
    create_competition(
        client,
        OPEN_SLUG,
        BOARDS["ladder"],
        data,
        title="Breast cancer: your turn, on the Ladder",
        daily_quota=OPEN_DAILY_QUOTA,
    )
    for team, files in honest.items():
        team_client = client.with_token(client.add_team(OPEN_SLUG, team)["token"])
        for message, file in files:
            team_client.submit(OPEN_SLUG, file, message=message)
    token = client.add_team(OPEN_SLUG, NEWCOMER)["token"]
    return OpenCompetition(
        OPEN_SLUG, f"{server_url}/c/{OPEN_SLUG}", NEWCOMER, token, OPEN_DAILY_QUOTA
    )


def run_demo(
    *,
    k: int = 400,
    n_teams: int | None = None,
    seed: int = 0,
    serve: Callable | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> DemoResult:
    """Start a server over a fresh SQLite file, :func:`play`, stop the server.

    ``serve(result, server, opened)``, when given, is called before the
    server stops, with the :class:`OpenCompetition` made for it
    (``ladderboard demo --serve`` waits there). ``progress(done, total)``,
    when given, is called after each submission played (see :func:`play`).
    """
    from ladderboard.server.local import LocalServer

    k, n_teams, seed = _checked(k, n_teams, seed)  # before the server starts
    data = holdout(seed)
    honest = honest_predictions(data, n_teams, seed)
    with tempfile.TemporaryDirectory(prefix="ladderboard-demo-") as folder:
        url = f"sqlite:///{Path(folder) / 'demo.db'}"
        with LocalServer(url) as server, Client(server.url, server.admin_token) as client:
            result = play(client, data, honest, k=k, seed=seed, progress=progress)
            if serve is not None:
                serve(result, server, open_competition(client, data, honest, server.url))
    return result


def demo_table(result: DemoResult) -> Table:
    """Both competitions' public and private boards, one row per team."""
    table = Table(
        title=(
            f"Breast cancer: {result.n_train} training rows, holdout {result.n_public} public "
            f"+ {result.n_private} private; 0/1 error; the attacker perturbs its model "
            f"k = {result.k} times; seed {result.seed}"
        ),
        caption=(
            "Kaggle: FullDisclosure; Ladder: ParameterFreeLadder. subs: submissions (on each "
            "board when they differ); public: the team's best released score; private: the "
            "error of its selected submissions on the private rows, published after the close "
            "(the attacker selects the submission its public score comes from); #rank."
        ),
        box=box.SIMPLE_HEAVY,
    )
    table.add_column("team", no_wrap=True)
    table.add_column("subs", justify="right")
    for slug in BOARDS:
        table.add_column(f"{slug.title()} public", justify="right", no_wrap=True)
        table.add_column("private", justify="right", no_wrap=True)
    for team in result.teams:
        entries = {str(result.standings[slug][team].entries) for slug in BOARDS}
        cells = [team, "/".join(sorted(entries))]
        for slug in BOARDS:
            s = result.standings[slug][team]
            cells += [f"{s.public:.4f} #{s.public_rank}", f"{s.private:.4f} #{s.private_rank}"]
        table.add_row(*cells, style="bold red" if team == ATTACKER else None)
    return table


def demo_summary(result: DemoResult) -> str:
    """A sentence for each board: where the attacker's perturbations put it on
    the public side, and where its selected submission lands on the private
    side, beside its unperturbed model's scores."""
    n = len(result.teams)
    lines = []
    for slug in BOARDS:
        s = result.standings[slug][ATTACKER]
        start = result.start_public[slug]
        if s.public < start:
            climb = f"climbed from its model's {start:.3f} to {s.public:.3f}"
        else:
            climb = f"stayed at its model's {start:.3f}"
        lines.append(
            f"{BOARD_TITLES[slug]}: after {result.k} perturbations of its model the attacker "
            f"{climb} on the public board, rank {s.public_rank} of {n}; on the private board "
            f"its selected submission errs {s.private:.3f} (its model alone: "
            f"{result.start_private:.3f}), rank {s.private_rank} of {n}."
        )
    return "\n".join(lines)
