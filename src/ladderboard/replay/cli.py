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
    submissions_dir: Path,
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
    words += ["--submissions-dir", str(submissions_dir)]
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
    submissions_dir: Annotated[
        Path,
        typer.Option("--submissions-dir", metavar="DIR", help="The folder of submission files."),
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
            "folder, else the file names TEAM__YYYYMMDDTHHMMSSZ.csv.",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            metavar="KEY=VALUE",
            help="A parameter for every chosen mechanism that takes KEY (repeatable).",
        ),
    ] = None,
    loss: Annotated[
        str,
        typer.Option(
            "--loss",
            metavar="NAME",
            help="The per-row loss the loss-based mechanisms see and the boards rank by: a "
            "registered loss (`ladderboard scores`, kind loss).",
        ),
    ] = "log_loss",
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            metavar="NAME",
            help="The metric of the metric-based mechanisms (the Bayesian-bootstrap ladders): "
            "a registered metric (`ladderboard scores`, kind metric).",
        ),
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
    threads: Annotated[
        int,
        typer.Option(
            "--threads",
            min=1,
            help="Threads reading and scoring the files and replaying the teams (the result "
            "does not depend on it).",
        ),
    ] = 1,
) -> None:
    """Replay every submission under each mechanism with per-team boards; write the
    rank perturbations, public vs private scores, half-splits, t-tests and Kendall's
    tau (Ladder paper §6) as CSV, PNG, SVG and report.md.

    --loss and --metric are two scores because the mechanisms see two kinds:
    the loss-based ones a per-row loss, the metric-based ones a metric of the
    whole holdout; both take the registered names only.
    """
    from ladderboard.replay.report import write_outputs
    from ladderboard.replay.run import replay_competition
    from ladderboard.terminal import parse_params, progress, usage_error

    params = list(param or [])
    try:
        parse_params(params)  # the replay reads them again; a bad one is a usage error here
    except ValueError as exc:
        usage_error("--param", str(exc))
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{str(out)!r} exists and is not a directory", param_hint="--out")
    try:
        with progress("replay") as advance:
            result = replay_competition(
                solution,
                submissions_dir,
                index=index,
                mechanisms=mechanism,
                params=params,
                loss=loss,
                metric=metric,
                seed=seed,
                threads=threads,
                clip=clip,
                progress=advance,
            )
    except (TypeError, ValueError) as exc:
        message = str(exc)
        for option in ("loss", "metric"):
            if message.startswith(f"{option}: "):
                usage_error(f"--{option}", message.removeprefix(f"{option}: "))
        if message.startswith("submissions_dir "):
            usage_error("--submissions-dir", message.removeprefix("submissions_dir "))
        raise typer.BadParameter(message) from None
    command = _command(
        solution, submissions_dir, index, mechanism, params, loss, metric, out, seed, clip
    )
    paths = write_outputs(result, out, command=command)
    history = result.history
    typer.echo(
        f"replayed {len(history.entries)} submissions of {len(history.teams)} teams under "
        f"{', '.join(r.name for r in result.replays)}; skipped {len(history.skipped)}"
    )
    for path in paths:
        typer.echo(f"wrote {path}")


def import_history(
    platform: Annotated[
        str, typer.Argument(metavar="PLATFORM", help="codabench or evalai.", show_default=False)
    ],
    listing: Annotated[
        Path,
        typer.Option(
            "--list",
            help="The platform's list of submissions: Codabench's 'Download as CSV', EvalAI's "
            "host CSV of all submissions.",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="An empty folder: the replay folder is written there.")
    ],
    bulk: Annotated[
        Path | None,
        typer.Option(
            "--bulk",
            help="Codabench: bulk_submissions.zip, or the folder it was unzipped to.",
        ),
    ] = None,
    files: Annotated[
        Path | None,
        typer.Option("--files", help="EvalAI: the folder the submitted files were downloaded to."),
    ] = None,
    phase: Annotated[
        str | None, typer.Option("--phase", help="Codabench: only this phase's submissions.")
    ] = None,
    member: Annotated[
        str | None,
        typer.Option(
            "--member",
            help="Codabench: the prediction file's name inside each submission's zip "
            "(default: its one CSV file).",
        ),
    ] = None,
) -> None:
    """Turn another platform's export of a past competition into the folder
    `ladderboard replay` reads (submissions/ and submissions.csv), the
    submissions it did not score listed in skipped.csv."""
    from ladderboard.replay.imports import (
        PLATFORMS,
        UnreadableExport,
        import_codabench,
        import_evalai,
    )
    from ladderboard.terminal import usage_error

    if platform not in PLATFORMS:
        usage_error("PLATFORM", f"{platform!r} is not one of {', '.join(PLATFORMS)}")
    needed, refused = ("--bulk", "--files") if platform == "codabench" else ("--files", "--bulk")
    given = {"--bulk": bulk, "--files": files}
    if given[needed] is None:
        usage_error(needed, f"{platform} needs {needed}")
    if given[refused] is not None:
        usage_error(refused, f"{platform} takes --list, {needed} and --out only")
    for option, value in (("--phase", phase), ("--member", member)):
        if platform == "evalai" and value is not None:
            usage_error(option, "evalai takes --list, --files and --out only")
    try:
        if platform == "codabench":
            assert bulk is not None
            done = import_codabench(bulk, listing, out, phase=phase, member=member)
        else:
            assert files is not None
            done = import_evalai(listing, files, out)
    except (UnreadableExport, OSError) as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(
        f"imported {done.taken} submissions into {done.submissions_dir}; "
        f"skipped {len(done.skipped)} (see {out / 'skipped.csv'})"
    )
    command = [
        "ladderboard", "replay", "--solution", "SOLUTION.csv", "--submissions-dir",
        str(done.submissions_dir), "--mechanism", "all", "--out", "REPORT_DIR",
    ]  # fmt: skip
    typer.echo(f"replay them with: {shlex.join(command)}")


def register(app: typer.Typer) -> None:
    """Add the ``replay`` and ``import-history`` commands to ``app``."""
    app.command("replay")(replay)
    app.command("import-history")(import_history)
