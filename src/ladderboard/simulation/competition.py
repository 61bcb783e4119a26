"""Simulate a whole Kaggle-style competition and write it as a competition directory.

:func:`simulate_competition` draws the hidden test set from a dataset, lets
honest teams (:mod:`~ladderboard.simulation.honest`) and a few adversaries
(:mod:`~ladderboard.simulation.adversaries`) submit through their boards over
a three-month competition, and writes::

    OUT/
      solution.csv           Solution.to_csv(): id, target, Usage (Public/Private)
      sample_submission.csv  Solution.sample_submission_csv()
      submissions.csv        the index, in submission order: file,team,submitted_at
      submissions/           one file per submission, TEAM__YYYYMMDDTHHMMSSZ.csv(.gz)
      teams.csv              ground truth: team,kind,strategy (kind = honest | adversary)
      defects.csv            ground truth of the injected formatting defects: file,defect
      README.md              the command that made it and what each file is

How much teams submit is heavy-tailed, as in real competitions: every team
submits at least once, and the rest of the budget is shared in proportion to
log-normal weights. A team joins at some point of the competition (most join
early) and its submissions come at increasing times, more of them towards the
end. Everything random is drawn from streams of one
:class:`~ladderboard.random.KeyedStream` keyed by ``seed`` (and estimators
seeded from it), so the same arguments write byte-identical directories.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ladderboard._validation import check_int, check_real
from ladderboard.simulation.adversaries import ADVERSARIES, MIN_BUDGET
from ladderboard.simulation.datasets import check_dataset_options
from ladderboard.simulation.layout import (
    LAYOUT_FILES,
    command_line,
    prepare,
    readme,
    write_csv,
)
from ladderboard.simulation.plan import budgets, defect_plan, submission_times, team_names
from ladderboard.simulation.submitting import SubmissionRecord

if TYPE_CHECKING:
    from ladderboard.random import KeyedStream

__all__ = ["LAYOUT_FILES", "SimulationSummary", "check_options", "simulate_competition"]


@dataclass(frozen=True, eq=False)
class SimulationSummary:
    """What :func:`simulate_competition` wrote, and the organiser-side truth.

    ``records`` lists every submission in submission order (see
    :class:`~ladderboard.simulation.submitting.SubmissionRecord`);
    ``base_rate_private_loss`` is the private log loss of predicting the
    training base rate everywhere; ``n_fits`` counts the models fitted.
    """

    out: Path
    dataset: str
    command: str
    n_train: int
    n_test: int
    n_public: int
    n_teams: int
    n_adversaries: int
    n_submissions: int
    n_defects: int
    n_fits: int
    base_rate_private_loss: float
    records: tuple[SubmissionRecord, ...]

    @property
    def n_honest(self) -> int:
        return self.n_teams - self.n_adversaries


def check_options(
    *,
    out: Any,
    dataset: Any = "caravan",
    teams: Any = 200,
    submissions: Any = 2000,
    adversaries: Any = 3,
    rows: Any = None,
    public_fraction: Any = 0.3,
    test_fraction: Any = 0.5,
    defect_rate: Any = 0.015,
    seed: Any = 0,
    days: Any = 90,
    force: bool = False,
) -> Path:
    """Refuse bad options before anything is read or written; the output folder as a Path."""
    check_dataset_options(dataset, rows)
    teams = check_int("teams", teams, 1)
    submissions = check_int("submissions", submissions, 1)
    adversaries = check_int("adversaries", adversaries, 0)
    if adversaries >= teams:
        raise ValueError(
            f"adversaries must be fewer than teams ({teams}) so that one team is honest, "
            f"got {adversaries}"
        )
    needed = (teams - adversaries) + MIN_BUDGET * adversaries
    if submissions < needed:
        raise ValueError(
            f"submissions must be at least {needed} (one per honest team and {MIN_BUDGET} per "
            f"adversary), got {submissions}"
        )
    check_real("public_fraction", public_fraction, low=0, high=1)
    check_real("test_fraction", test_fraction, low=0, high=1)
    check_real("defect_rate", defect_rate, low=0, high=0.5, low_open=False)
    check_int("seed", seed, 0)
    check_int("days", days, 1)
    if not isinstance(out, str | Path):
        raise TypeError(f"out must be a path, got {type(out).__name__}")
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"out must be a directory, got the file {str(path)!r}")
    if path.is_dir() and any(path.iterdir()) and not force:
        raise ValueError(
            f"out directory {str(path)!r} is not empty; choose another or pass force "
            "(--force) to overwrite a previous simulation there"
        )
    return path


def simulate_competition(
    *,
    out: str | Path,
    dataset: str = "caravan",
    teams: int = 200,
    submissions: int = 2000,
    adversaries: int = 3,
    rows: int | None = None,
    public_fraction: float = 0.3,
    test_fraction: float = 0.5,
    defect_rate: float = 0.015,
    seed: int = 0,
    days: int = 90,
    board: Callable[[str], Any] | None = None,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationSummary:
    """Simulate a competition on ``dataset`` and write it to ``out`` (see the module docstring).

    Parameters
    ----------
    out : path
        The competition directory; it must not exist or be empty, unless
        ``force`` (then a previous simulation's files there are replaced).
    dataset : {"caravan", "default", "synthetic"}
    teams : int
        Teams in all, adversaries included (the Ladder paper's replay: 200).
    submissions : int
        Files in all (the paper's: 1785). Each adversary gets 3 % of them (at
        least 4); honest teams share the rest, at least one each.
    adversaries : int
        Attacking teams, playing ``boosting``, ``perturbation_boosting`` and
        ``feature_selection`` in turn.
    rows : int, optional
        Size of the ``synthetic`` dataset (default 24000).
    public_fraction : float
        Share of the test rows scoring the public board (the paper: 0.3).
    test_fraction : float
        Share of the dataset held out as the test set.
    defect_rate : float
        Share of the files spoiled by one formatting defect (honest teams' only).
    seed : int
        Keys every random stream.
    days : int
        Length of the competition.
    board : callable, optional
        ``board(team_name)`` returns the mechanism that team is shown, called
        once per team (per-team boards); by default full disclosure rounded to
        1e-5, Kaggle's board (Blum & Hardt 2015, App. A).
    progress : callable, optional
        Called as ``progress(done, total)`` after each team.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     summary = simulate_competition(out=Path(tmp) / "c", dataset="synthetic", rows=400,
    ...                                    teams=4, submissions=12, adversaries=1, seed=1)
    ...     names = sorted(p.name for p in summary.out.iterdir())
    >>> summary.n_submissions, summary.n_test, summary.n_public
    (12, 200, 60)
    >>> names  # doctest: +NORMALIZE_WHITESPACE
    ['README.md', 'defects.csv', 'sample_submission.csv', 'solution.csv', 'submissions',
     'submissions.csv', 'teams.csv']
    """
    from ladderboard.random import KeyedStream

    path = check_options(
        out=out,
        dataset=dataset,
        teams=teams,
        submissions=submissions,
        adversaries=adversaries,
        rows=rows,
        public_fraction=public_fraction,
        test_fraction=test_fraction,
        defect_rate=defect_rate,
        seed=seed,
        days=days,
        force=force,
    )
    if board is not None and not callable(board):
        raise TypeError(f"board must be a callable team -> mechanism, got {type(board).__name__}")
    from threadpoolctl import threadpool_limits

    from ladderboard.simulation.models import import_estimators

    import_estimators()  # before the limit, which applies to the thread pools loaded
    command = command_line(
        dataset, teams, submissions, adversaries, rows, public_fraction, test_fraction,
        defect_rate, seed, days, path,
    )  # fmt: skip
    from sklearn.exceptions import ConvergenceWarning

    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # unconverged models are realistic
        return _run(
            path=path,
            dataset=dataset,
            n_teams=teams,
            n_submissions=submissions,
            n_adversaries=adversaries,
            rows=rows,
            public_fraction=public_fraction,
            test_fraction=test_fraction,
            defect_rate=defect_rate,
            master=KeyedStream.from_random_state(seed),
            days=days,
            board=board,
            command=command,
            custom_board=board is not None,
            progress=progress,
        )


def _run(
    *,
    path: Path,
    dataset: str,
    n_teams: int,
    n_submissions: int,
    n_adversaries: int,
    rows: int | None,
    public_fraction: float,
    test_fraction: float,
    defect_rate: float,
    master: KeyedStream,
    days: int,
    board: Callable[[str], Any] | None,
    command: str,
    custom_board: bool,
    progress: Callable[[int, int], None] | None,
) -> SimulationSummary:
    import numpy as np

    from ladderboard.files import Solution
    from ladderboard.losses import get_loss
    from ladderboard.mechanisms import FullDisclosure
    from ladderboard.simulation.adversaries import play_adversary
    from ladderboard.simulation.datasets import load_dataset, split_dataset
    from ladderboard.simulation.honest import draw_style, play_honest
    from ladderboard.simulation.models import Zoo
    from ladderboard.simulation.submitting import TeamDesk

    data = load_dataset(dataset, rows=rows, rng=master.derive("dataset").generator(0))
    split = split_dataset(
        data,
        test_fraction=test_fraction,
        public_fraction=public_fraction,
        rng=master.derive("split").generator(0),
    )
    solution = Solution(
        ids=data.ids[split.test],
        targets=split.y_test.astype(np.float64),
        usage=np.where(split.public, "Public", "Private"),
        id_column="id",
        target_columns=(data.target_column,),
    )
    estimator_seed = int(master.derive("estimators").generator(0).integers(2**31))
    zoo = Zoo(split, estimator_seed=estimator_seed)
    loss = get_loss("log_loss")
    make_board = board if board is not None else (lambda team: FullDisclosure(precision=1e-5))

    plan = master.derive("plan")
    names = team_names(n_teams, plan.generator(0))
    is_adversary = np.zeros(n_teams, dtype=bool)
    is_adversary[plan.generator(1).permutation(n_teams)[:n_adversaries]] = True
    efforts = budgets(is_adversary, n_submissions, plan.generator(2))
    times = submission_times(efforts, days, plan.generator(3))
    defects = defect_plan(efforts, is_adversary, defect_rate, plan.generator(4))

    prepare(path)
    (path / "solution.csv").write_bytes(solution.to_csv())
    (path / "sample_submission.csv").write_bytes(solution.sample_submission_csv())
    folder = path / "submissions"
    folder.mkdir()

    feature_sets = sorted(split.feature_sets)
    records: list[SubmissionRecord] = []
    team_rows: list[tuple[str, str, str]] = []
    n_adversary_seen = 0
    for i, team in enumerate(names):
        stream = master.derive(f"team/{i}")
        style_rng = stream.generator(0)
        if is_adversary[i]:
            kind = "adversary"
            strategy = ADVERSARIES[n_adversary_seen % len(ADVERSARIES)]
            n_adversary_seen += 1
            row_order = np.arange(solution.n)
        else:
            kind = "honest"
            style = draw_style(style_rng, feature_sets)
            strategy = style.describe()
            row_order = (
                style_rng.permutation(solution.n) if style.shuffles_rows else np.arange(solution.n)
            )
        desk = TeamDesk(
            team=team,
            kind=kind,
            times=times[i],
            mechanism=make_board(team),
            solution=solution,
            loss=loss,
            folder=folder,
            row_order=row_order,
            defects=defects.get(i, {}),
            rng=stream.generator(2),
        )
        if is_adversary[i]:
            play_adversary(desk, strategy, zoo, stream.derive("attack"), stream.generator(1))
        else:
            play_honest(desk, style, zoo, feature_sets, stream.generator(1))
        if desk.remaining:
            raise RuntimeError(f"team {team} left {desk.remaining} submissions unused")
        records.extend(desk.records)
        team_rows.append((team, kind, strategy))
        if progress is not None:
            progress(len(records), n_submissions)

    records.sort(key=lambda r: (r.submitted_at, r.team))
    write_csv(
        path / "submissions.csv",
        ("file", "team", "submitted_at"),
        [(r.file, r.team, r.submitted_at) for r in records],
    )
    write_csv(path / "teams.csv", ("team", "kind", "strategy"), team_rows)
    write_csv(
        path / "defects.csv",
        ("file", "defect"),
        [(r.file, r.defect) for r in records if r.defect is not None],
    )
    base = np.full(solution.n, zoo.base_rate)
    base_private = float(np.mean(loss(solution.targets, base)[solution.private_mask]))
    summary = SimulationSummary(
        out=path,
        dataset=dataset,
        command=command,
        n_train=len(split.train),
        n_test=solution.n,
        n_public=solution.n_public,
        n_teams=n_teams,
        n_adversaries=n_adversaries,
        n_submissions=len(records),
        n_defects=sum(r.defect is not None for r in records),
        n_fits=zoo.n_fits,
        base_rate_private_loss=base_private,
        records=tuple(records),
    )
    (path / "README.md").write_text(readme(summary, data.description, days, custom_board))
    return summary
