"""The ``ladderboard demo``: a real competition, served over HTTP, with attackers.

It starts the real server (uvicorn over the app factory, a fresh SQLite file in
a temporary folder) on a free loopback port and plays a competition on the
Wisconsin breast-cancer data bundled with scikit-learn (569 tumours, benign or
malignant): 40 % of the rows train the teams' models, the other 60 % are the
holdout, split half Public, half Private by its ``Usage`` column. The same
holdout backs two competitions scored by the 0/1 loss: one on a Kaggle board
(:class:`~ladderboard.mechanisms.FullDisclosure`) and one on ladderboard's
default board (:data:`ladderboard.recommended.RECOMMENDED`, its parameters
made explicit for the public rows by :func:`~ladderboard.demo.boards.default_board`).

Honest teams fit real scikit-learn models and improve them over several
submissions. Two attackers read nothing but their own released scores
(:mod:`ladderboard.demo.attackers`): the ``attacker``, a team with a good
model (the ``logistic`` team's best fit) that perturbs it by the boosting
attack of Blum & Hardt (2015, Sec. 5, from two candidates as in Hardt's 2015
blog post), and the ``hill-climber``, a team with no model that changes a few
rows at a time of the file the board seems to like best (near-duplicate
hill-climbing, which breaks paired-test ladders, Hardt 2017, Sec. 3-4). Each
selects the file it believes best as its final submission.

On the Kaggle board every exact score leaks a little about the public labels:
both attackers climb the public board with files that are no better, or worse,
on the private rows. The default board shows a new score only for a
difference its rule does not put down to the holdout's noise, so the
attackers learn little. What each attacker gets is the board's score of its
chosen file against that file's error on the private rows (the raw gain of
Blum & Hardt 2015, Def. 2.1, :meth:`DemoResult.raw_gain`), and how much more
the board flatters it than the attacker's first file
(:meth:`DemoResult.attack_gain`). What the demo prints is in
:mod:`ladderboard.demo.output`.
Every submission goes through the HTTP API with
:class:`~ladderboard.client.Client`; the organiser then closes both
competitions and publishes their private boards, and both boards of each are
read back over HTTP without a token, as anyone may.

Each competition has an overview and rules in Markdown and the data a team
needs (``train.csv``, ``test.csv``, and the generated sample submission).
With ``ladderboard demo --serve`` a third competition on the default board is
left open, with the honest teams' submissions on its board and a fresh team
for whoever browses: to download the data, submit, read what the board did
with the score, and choose final submissions.

The data, the files and the teams' models are in :mod:`ladderboard.demo.data`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.client import Client
from ladderboard.demo.attackers import (
    ATTACKER,
    CLIMBER,
    PERTURBATION,
    HttpOracle,
    climb,
    perturb,
)
from ladderboard.demo.boards import (
    BOARDS,
    DEFAULT,
    KAGGLE,
    board_mechanisms,
    board_text,
    board_title,
    default_board,
)
from ladderboard.demo.data import (
    HONEST_TEAMS,
    Holdout,
    attacker_logits,
    holdout,
    honest_predictions,
)
from ladderboard.demo.output import demo_summary, demo_table
from ladderboard.demo.result import DemoResult, Standing
from ladderboard.random import KeyedStream

__all__ = [
    "ATTACKER",
    "BOARDS",
    "CLIMBER",
    "DEFAULT",
    "HONEST_TEAMS",
    "KAGGLE",
    "NEWCOMER",
    "OPEN_DAILY_QUOTA",
    "OPEN_SLUG",
    "PERTURBATION",
    "DemoResult",
    "OpenCompetition",
    "Standing",
    "default_board",
    "demo_summary",
    "demo_table",
    "run_demo",
]

OPEN_SLUG = "breast-cancer"
"""The competition ``ladderboard demo --serve`` leaves open, on the default board."""

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

RULES = """\
1. One team per person or group; do not share predictions or tokens between teams.
2. {quota}; a file the server refuses does not count, but at most 20 refused files
   are accepted in all.
3. Choose up to 2 final submissions; without a choice, your best public ones count.
4. The organiser publishes the private board after the close, with the key that lets
   anyone holding the store check every released score (`ladderboard verify`).
"""


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
    mechanism: tuple[str, dict[str, Any]],
    data: Holdout,
    *,
    title: str,
    daily_quota: int | None,
) -> None:
    """Create a competition on the holdout, on ``mechanism`` (its name and
    explicit parameters), with its overview, rules and data files."""
    name, params = mechanism
    quota = (
        "No daily limit in this demo (the attackers need hundreds of submissions)"
        if daily_quota is None
        else f"Up to {daily_quota} submissions a day (UTC)"
    )
    client.create_competition(
        slug,
        data.solution.to_csv(),
        score="zero_one",
        mechanism=name,
        mechanism_params=params,
        title=title,
        description=OVERVIEW.format(
            n_train=len(data.y_train), n_test=len(data.test_ids), board=board_text(name, params)
        ),
        rules=RULES.format(quota=quota),
        daily_quota="none" if daily_quota is None else daily_quota,
        data_files=data.data_files(),
    )


def _majority_class(data: Holdout) -> np.ndarray:
    """The hill-climber's first file: every test row predicted as the
    training rows' majority class (what a team with no model submits)."""
    majority = int(np.mean(data.y_train) > 0.5)
    return np.full(len(data.test_ids), majority, dtype=np.int8)


def _error(prediction: np.ndarray, data: Holdout, rows: np.ndarray) -> float:
    labels = np.asarray(data.solution.targets).reshape(len(prediction))
    return float(np.mean(prediction[rows] != labels[rows]))


def _changed(file: np.ndarray, first: np.ndarray, private_rows: np.ndarray) -> tuple[int, int]:
    """Public and private rows where ``file`` differs from ``first``."""
    differ = np.asarray(file) != np.asarray(first)
    return int(np.sum(differ & ~private_rows)), int(np.sum(differ & private_rows))


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

    On each board the ``attacker`` makes ``k + 4`` submissions (fewer when a
    file repeats one it sent): its model, the two shifted candidates, ``k``
    mixtures and their majority; the ``hill-climber`` at most ``k``; the
    same draws on both boards. ``progress(done, total)``, when given, is
    called after each submission (the honest teams' files and the
    attackers', on both boards).
    """
    asked = board_mechanisms(data.solution.n_public)
    mechanisms: dict[str, tuple[str, dict[str, Any]]] = {}
    total = len(BOARDS) * (sum(len(files) for files in honest.values()) + 2 * k + 4)
    done = 0

    def step() -> None:
        nonlocal done
        done = min(done + 1, total)
        if progress is not None:
            progress(done, total)

    if progress is not None:
        progress(0, total)

    tokens: dict[str, str] = {}
    for slug in BOARDS:
        name = board_title(asked[slug][0])
        board = "Kaggle's" if slug == KAGGLE else f"the default ({name})"
        create_competition(
            client,
            slug,
            asked[slug],
            data,
            title=f"Breast cancer on {board} board",
            daily_quota=None,
        )
        rules = client.competition(slug)  # what the server runs, as anyone reads it
        mechanisms[slug] = (rules["mechanism"], dict(rules["mechanism_params"]))
        for team in [*honest, ATTACKER, CLIMBER]:
            tokens[f"{slug}/{team}"] = client.add_team(slug, team)["token"]

    for team, files in honest.items():
        for message, file in files:
            for slug in BOARDS:
                client.with_token(tokens[f"{slug}/{team}"]).submit(slug, file, message=message)
                step()

    logits = attacker_logits(data, seed)
    private_rows = np.asarray(data.solution.private_mask)
    keys = KeyedStream.from_random_state(seed)
    perturb_key, climb_key = keys.generator(1).bytes(16), keys.generator(2).bytes(16)
    first = _majority_class(data)
    start_private = {
        ATTACKER: _error((logits > 0).astype(np.int8), data, private_rows),
        CLIMBER: _error(first, data, private_rows),
    }
    start_public: dict[str, dict[str, float]] = {}
    changed: dict[str, dict[str, tuple[int, int]]] = {}
    for slug in BOARDS:
        team_of = {
            team: client.with_token(tokens[f"{slug}/{team}"]) for team in (ATTACKER, CLIMBER)
        }
        oracle = HttpOracle(team_of[ATTACKER], slug, data.test_ids, on_submit=step)
        model_score, chosen, perturbed = perturb(
            oracle, logits, k=k, key=perturb_key, full_disclosure=slug == KAGGLE
        )
        team_of[ATTACKER].select(slug, [chosen])
        oracle = HttpOracle(team_of[CLIMBER], slug, data.test_ids, on_submit=step)
        first_score, chosen, climbed = climb(oracle, first, k=k, key=climb_key)
        team_of[CLIMBER].select(slug, [chosen])
        start_public[slug] = {ATTACKER: model_score, CLIMBER: first_score}
        changed[slug] = {
            ATTACKER: _changed(perturbed, logits > 0, private_rows),
            CLIMBER: _changed(climbed, first, private_rows),
        }

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
        teams=(*honest, ATTACKER, CLIMBER),
        mechanisms=mechanisms,
        standings=standings,
        start_public=start_public,
        start_private=start_private,
        changed=changed,
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
    """Create :data:`OPEN_SLUG` on the default board with a daily quota, the
    honest teams' submissions on its board, and the team :data:`NEWCOMER`."""
    create_competition(
        client,
        OPEN_SLUG,
        default_board(data.solution.n_public),
        data,
        title="Breast cancer: your turn, on the default board",
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
