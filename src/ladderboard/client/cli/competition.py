"""``ladderboard competition create``, ``edit``, ``correct`` and ``dump`` (the
organiser's token).

The options of ``create`` are named types here so that the verb's
signature reads as the list of what a competition is made of."""

from __future__ import annotations

import enum
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from ladderboard.client.cli.bundle import create_from, dump, refuse_beside_from
from ladderboard.client.cli.calendar import (
    FreezeDaysOption,
    FreezeOption,
    LateOption,
    LateSwitchOption,
    OpensOption,
    calendar_fields,
)
from ladderboard.client.cli.competition_settings import (
    AutoPublishEditOption,
    DailyQuotaOption,
    InvalidQuotaOption,
    MaxBytesOption,
    MaxTeamSizeOption,
    MergerDeadlineOption,
    PrecisionOption,
    ScoreParamOption,
    SelectionsOption,
    TotalQuotaOption,
    form_fields,
    setting_fields,
)
from ladderboard.client.cli.shared import (
    BAR_BYTES,
    EXIT_STATUS,
    USAGE,
    ServerOption,
    SlugArgument,
    TokenOption,
    call,
    fail,
    show,
)
from ladderboard.recommended import RECOMMENDED
from ladderboard.terminal import (
    CsvOption,
    JsonOption,
    output_format,
    parse_params,
    progress,
    stdout_is_terminal,
)

__all__ = [
    "Board",
    "Registration",
    "Visibility",
    "competition_app",
    "competition_correct",
    "competition_create",
    "competition_dump",
    "competition_edit",
    "competition_look_alikes",
]


class Registration(enum.StrEnum):
    """How accounts join a competition."""

    list = "list"
    open = "open"
    invitation = "invitation"


RegistrationOption = Annotated[
    Registration | None,
    typer.Option(
        help="How accounts join: the organiser's list (the default; team tokens), open to "
        "any account, or by invitation (`competition invite`)."
    ),
]


class Board(enum.StrEnum):
    """The board a competition shows: one score per team, or one per rank."""

    per_team = "per-team"
    per_rank = "per-rank"


class Visibility(enum.StrEnum):
    """Who sees a competition: anyone (listed), anyone with its address
    (not listed), or only its teams and organisers."""

    public = "public"
    unlisted = "unlisted"
    private = "private"


competition_app = typer.Typer(
    help="Create and edit competitions (organiser).", no_args_is_help=True
)


def _read_text(path: Path | None, option: str) -> str | None:
    """The text of the file given to ``option``, which must be UTF-8."""
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        fail(f"{option} {path} is not UTF-8 text", USAGE)


def _deadline(value: str | None) -> str | None:
    """An ISO 8601 time with its zone, checked before any request; ``none``
    stays as is."""
    if value is None or value.lower() == "none":
        return value
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        fail(
            f"--deadline: not an ISO 8601 time: {value!r} (e.g. 2030-01-31T23:59:00+00:00, "
            "or 'none')",
            USAGE,
        )
    if parsed.tzinfo is None:
        fail(f"--deadline: {value!r} has no time zone (add +00:00 or Z)", USAGE)
    return value


SolutionOption = Annotated[
    Path | None,
    typer.Option("--solution", exists=True, dir_okay=False, help="The solution CSV."),
]
ScoreOption = Annotated[
    str | None,
    typer.Option("--score", help="A registered loss or metric, e.g. zero_one, log_loss."),
]
FromOption = Annotated[
    Path | None,
    typer.Option(
        "--from",
        exists=True,
        help=(
            "A bundle: its competition.yaml, or the folder holding one (see the organiser "
            "guide). It says everything, so the other options are refused beside it; the "
            "SLUG argument, when given, names the competition instead of the bundle's slug."
        ),
    ),
]
MechanismOption = Annotated[
    str | None,
    typer.Option(
        "--mechanism",
        help=(
            "A registered mechanism, e.g. ladder-boot, shaky-ladder. Omitted: "
            f"ladderboard's default, {RECOMMENDED.label} ({RECOMMENDED.mechanism}), "
            "with its parameters at the solution's number of public rows."
        ),
    ),
]
ParamOption = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help=(
            "A parameter of --mechanism, KEY=VALUE (repeatable); those not given take "
            "their defaults, and the competition stores every one."
        ),
    ),
]
DataFileOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--data-file", exists=True, dir_okay=False, help="A file for the teams (repeatable)."
    ),
]
BoardOption = Annotated[
    Board | None,
    typer.Option(help="One score per team (the default), or a board of ranks."),
]
RanksOption = Annotated[
    int | None, typer.Option(min=1, help="The ranks of a per-rank board (default 10).")
]
AutoPublishOption = Annotated[
    bool,
    typer.Option("--auto-publish", help="Publish the private board and the key at the deadline."),
]
VisibilityOption = Annotated[
    Visibility | None,
    typer.Option(
        help="Who sees it: anyone, listed (public, the default); anyone with its address, "
        "not listed (unlisted); only its teams and organisers (private). Changes at any time."
    ),
]


def _mechanism_params(mechanism: str | None, param: list[str] | None) -> dict[str, Any]:
    """The ``--param`` pairs as a dict; they need ``--mechanism``, since
    the default mechanism comes with its parameters chosen."""
    try:
        params = parse_params(param or [])
    except ValueError as exc:
        fail(f"--param: {exc}", USAGE)
    if params and mechanism is None:
        fail(
            "--param sets a parameter of --mechanism: name the mechanism too, or give "
            f"neither for ladderboard's default, {RECOMMENDED.label}",
            USAGE,
        )
    return params


@competition_app.command("create", epilog=EXIT_STATUS)
def competition_create(
    ctx: typer.Context,
    slug: Annotated[
        str | None, typer.Argument(help="The competition's slug (with --from: the bundle's).")
    ] = None,
    solution: SolutionOption = None,
    score: ScoreOption = None,
    bundle: FromOption = None,
    mechanism: MechanismOption = None,
    param: ParamOption = None,
    title: Annotated[str | None, typer.Option(help="The title (default: the slug).")] = None,
    overview_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="The overview, a Markdown file."),
    ] = None,
    rules_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="The rules, a Markdown file."),
    ] = None,
    data_file: DataFileOption = None,
    daily_quota: DailyQuotaOption = None,
    total_quota: TotalQuotaOption = None,
    invalid_quota: InvalidQuotaOption = None,
    max_team_size: MaxTeamSizeOption = None,
    merger_deadline: MergerDeadlineOption = None,
    n_selections: SelectionsOption = None,
    max_bytes: MaxBytesOption = None,
    precision: PrecisionOption = None,
    score_param: ScoreParamOption = None,
    deadline: Annotated[
        str | None, typer.Option(help="ISO 8601 with a time zone (default: none).")
    ] = None,
    board: BoardOption = None,
    ranks: RanksOption = None,
    auto_publish: AutoPublishOption = False,
    opens: OpensOption = None,
    freeze: FreezeOption = None,
    freeze_days: FreezeDaysOption = None,
    late_submissions: LateOption = False,
    visibility: VisibilityOption = None,
    registration: RegistrationOption = None,
    phase_of: Annotated[
        str | None,
        typer.Option(
            help="Make it a later phase of this competition's series (a final phase after a "
            "development phase): the same teams, its own holdout, calendar, quotas and boards."
        ),
    ] = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Create a competition from a solution file, or from a bundle (--from)."""
    from ladderboard.client.tables import competition_table

    fmt = output_format(as_json, as_csv)
    if bundle is not None:
        refuse_beside_from(ctx)
        create_from(bundle, slug, server, token, fmt)
        return
    if slug is None or solution is None or score is None:
        fail("give SLUG, --solution and --score, or a bundle with --from", USAGE)
    params = _mechanism_params(mechanism, param)
    settings = setting_fields(
        daily_quota=daily_quota,
        total_quota=total_quota,
        invalid_quota=invalid_quota,
        max_team_size=max_team_size,
        merger_deadline=merger_deadline,
        n_selections=n_selections,
        max_bytes=max_bytes,
        precision=precision,
        score_param=score_param,
    )
    description = _read_text(overview_file, "--overview-file")
    rules = _read_text(rules_file, "--rules-file")
    files = [(path.name, path.read_bytes()) for path in data_file or []]
    content = solution.read_bytes()
    checked = _deadline(deadline)
    calendar = calendar_fields(opens, freeze, freeze_days, late_submissions or None, checked)
    size = len(content) + sum(len(data) for _, data in files)
    with progress(f"sending {slug}'s files", enabled=size >= BAR_BYTES) as advance:
        info = call(
            server,
            token,
            lambda c: c.create_competition(
                slug,
                content,
                score=score,
                mechanism=mechanism,
                mechanism_params=params,
                data_files=files,
                progress=advance,
                title=title,
                description=description,
                rules=rules,
                deadline=None if checked is None or checked.lower() == "none" else checked,
                board=None if board is None else board.value,
                ranks=ranks,
                auto_publish=auto_publish or None,
                visibility=None if visibility is None else visibility.value,
                registration=None if registration is None else registration.value,
                phase_of=phase_of,
                **form_fields(settings),
                **calendar,
            ),
            organiser=True,
        )
    show(fmt, info, lambda: competition_table(info))


@competition_app.command("edit", epilog=EXIT_STATUS)
def competition_edit(
    slug: SlugArgument,
    title: Annotated[str | None, typer.Option(help="A new title.")] = None,
    overview_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="A new overview, a Markdown file."),
    ] = None,
    rules_file: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False, help="New rules, a Markdown file."),
    ] = None,
    deadline: Annotated[
        str | None,
        typer.Option(help="A later deadline, ISO 8601 with a time zone, or 'none' (open only)."),
    ] = None,
    daily_quota: DailyQuotaOption = None,
    total_quota: TotalQuotaOption = None,
    invalid_quota: InvalidQuotaOption = None,
    max_team_size: MaxTeamSizeOption = None,
    merger_deadline: MergerDeadlineOption = None,
    n_selections: SelectionsOption = None,
    max_bytes: MaxBytesOption = None,
    precision: PrecisionOption = None,
    auto_publish: AutoPublishEditOption = None,
    opens: OpensOption = None,
    freeze: FreezeOption = None,
    freeze_days: FreezeDaysOption = None,
    late_submissions: LateSwitchOption = None,
    visibility: VisibilityOption = None,
    registration: RegistrationOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Edit a competition's texts, deadline or settings (organiser).

    The texts change at any time; the deadline and the settings while the
    competition is open, each from now on (nothing submitted is undone).
    Every change is recorded and listed on the Rules page. The score, the
    mechanism and the board are fixed at creation."""
    from ladderboard.client.http import KEEP
    from ladderboard.client.tables import competition_table

    fmt = output_format(as_json, as_csv)
    settings = setting_fields(
        daily_quota=daily_quota,
        total_quota=total_quota,
        invalid_quota=invalid_quota,
        max_team_size=max_team_size,
        merger_deadline=merger_deadline,
        n_selections=n_selections,
        max_bytes=max_bytes,
        precision=precision,
        auto_publish=auto_publish,
    )
    if visibility is not None:
        settings["visibility"] = visibility.value
    given = (title, overview_file, rules_file, deadline)
    if registration is not None:
        settings["registration"] = registration.value
    calendar_given = (opens, freeze, freeze_days, late_submissions) != (None,) * 4
    if all(value is None for value in given) and not settings and not calendar_given:
        fail(
            "nothing to change: give --title, --overview-file, --rules-file, --deadline "
            "or a setting (--daily-quota, --n-selections, --opens, --visibility, ...)",
            USAGE,
        )
    description = _read_text(overview_file, "--overview-file")
    rules = _read_text(rules_file, "--rules-file")
    checked = _deadline(deadline)
    new_deadline = KEEP if checked is None else None if checked.lower() == "none" else checked

    def update(c: Any) -> dict[str, Any]:
        # --freeze-days counts back from the new deadline, or the competition's.
        counted = checked if checked is not None or freeze_days is None else (
            c.competition(slug)["deadline"]
        )  # fmt: skip
        calendar = calendar_fields(opens, freeze, freeze_days, late_submissions, counted)
        return c.update_competition(
            slug,
            title=title,
            description=description,
            rules=rules,
            deadline=new_deadline,
            **settings,
            **calendar,
        )

    info = call(server, token, update, organiser=True)
    show(fmt, info, lambda: competition_table(info))


@competition_app.command("correct", epilog=EXIT_STATUS)
def competition_correct(
    slug: SlugArgument,
    solution: Annotated[
        Path,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="The solution with its labels corrected: the same ids, columns and split.",
        ),
    ],
    reason: Annotated[str, typer.Option(help="What was wrong, for the competition's history.")],
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Correct a solution with a mistake (organiser), before publication.

    Every submission is scored again on the corrected labels, each board run
    again with the competition's key, under a new commitment; the old
    solution, commitment and scores are kept, shown in the history, and
    checked by verify."""
    from ladderboard.client.tables import correction_table

    fmt = output_format(as_json, as_csv)
    data = solution.read_bytes()
    correction = call(
        server, token, lambda c: c.correct_solution(slug, data, reason), organiser=True
    )
    show(fmt, correction, lambda: correction_table(slug, correction))


@competition_app.command("dump", epilog=EXIT_STATUS)
def competition_dump(
    slug: SlugArgument,
    out: Annotated[
        Path, typer.Option("--out", file_okay=False, help="A new or empty folder for the bundle.")
    ],
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """Write a competition as a bundle: competition.yaml with every setting, the
    solution, the overview, the rules and the data files (organiser)."""
    dump(slug, out, server, token, output_format(as_json, as_csv))


@competition_app.command("look-alikes", epilog=EXIT_STATUS)
def competition_look_alikes(
    slug: SlugArgument,
    show_all: Annotated[
        bool, typer.Option("--all", help="The flags dismissed on the desk too.")
    ] = False,
    server: ServerOption = None,
    token: TokenOption = None,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
) -> None:
    """List accounts that look like one person's (organiser): a shared email
    address or mailbox, a sign-in identity's address, a client address within
    minutes of creation, or a team's predictions, each with its evidence.
    Nothing is refused for it: the organiser decides."""
    from ladderboard.client.tables import look_alikes_table

    fmt = output_format(as_json, as_csv)
    found = call(server, token, lambda c: c.look_alikes(slug), organiser=True)
    found = [flag for flag in found if show_all or not flag.get("dismissed")]
    if not found and fmt == "table" and stdout_is_terminal():
        typer.echo(f"no look-alike accounts in {slug}")
        return
    show(fmt, found, lambda: look_alikes_table(slug, found))
