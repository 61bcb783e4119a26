"""``ladderboard replay``: a competition's whole history under the mechanisms
(Blum & Hardt 2015, Sec. 6).

Imports only typer and the standard library at module level; the replay is
imported when the command runs, so that ``ladderboard --help`` stays fast.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]


def _command(
    solution: Path,
    submissions: Path,
    index: Path | None,
    mechanisms: list[str],
    params: list[str],
    loss: str,
    metric: str,
    out: Path,
    seed: int,
    clip: float | None,
) -> str:
    words = ["ladderboard", "replay", "--solution", str(solution)]
    words += ["--submissions", str(submissions)]
    if index is not None:
        words += ["--index", str(index)]
    for name in mechanisms:
        words += ["--mechanism", name]
    for pair in params:
        words += ["--param", pair]
    words += ["--loss", loss, "--metric", metric]
    if clip is not None:
        words += ["--clip", repr(clip)]
    words += ["--seed", str(seed), "--out", str(out)]
    return shlex.join(words)


def replay(
    solution: Annotated[
        Path, typer.Option("--solution", help="The solution file (id, target(s), Usage).")
    ],
    submissions: Annotated[
        Path, typer.Option("--submissions", help="The directory of submission files.")
    ],
    mechanism: Annotated[
        list[str],
        typer.Option(
            "--mechanism",
            help="A registered mechanism, or 'all'; repeat for several. Kaggle's board is "
            "full-disclosure.",
        ),
    ],
    index: Annotated[
        Path | None,
        typer.Option(
            "--index",
            help="The index (file,team,submitted_at); default: submissions.csv beside the "
            "directory, else the file names TEAM__YYYYMMDDTHHMMSSZ.csv.",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="KEY=VALUE for every chosen mechanism that takes KEY."),
    ] = None,
    loss: Annotated[
        str, typer.Option("--loss", help="The per-row loss (a name of ladderboard.losses).")
    ] = "log_loss",
    metric: Annotated[
        str, typer.Option("--metric", help="The metric of the metric-based mechanisms.")
    ] = "log_loss",
    clip: Annotated[
        float | None,
        typer.Option(
            "--clip",
            help="Clip probabilities to [CLIP, 1-CLIP] in a log loss (default Kaggle's 1e-15; "
            "0.01 keeps the Shaky Ladder's noise on the loss's scale).",
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", help="Where the tables, figures and report.md go.")
    ] = Path("replay"),
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the half-splits and noisy mechanisms.")
    ] = 0,
    jobs: Annotated[int, typer.Option("--jobs", help="Threads reading files and teams.")] = 1,
) -> None:
    """Replay every submission under each mechanism with per-team boards; write the
    rank perturbations, public vs private scores, half-splits, t-tests and Kendall's
    tau (Ladder paper §6) as CSV, PNG, SVG and report.md."""
    from ladderboard.replay.report import write_outputs
    from ladderboard.replay.run import replay_competition

    params = list(param or [])
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{str(out)!r} exists and is not a directory", param_hint="--out")
    try:
        result = replay_competition(
            solution,
            submissions,
            index=index,
            mechanisms=mechanism,
            params=params,
            loss=loss,
            metric=metric,
            seed=seed,
            jobs=jobs,
            clip=clip,
        )
    except (TypeError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    command = _command(
        solution, submissions, index, mechanism, params, loss, metric, out, seed, clip
    )
    paths = write_outputs(result, out, command=command)
    history = result.history
    typer.echo(
        f"replayed {len(history.entries)} submissions of {len(history.teams)} teams under "
        f"{', '.join(r.name for r in result.replays)}; skipped {len(history.skipped)}"
    )
    for path in paths:
        typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add the ``replay`` command to ``app``."""
    app.command("replay")(replay)
