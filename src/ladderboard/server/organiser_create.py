"""The form that creates a competition (``/organiser/new``).

One field per parameter of each mechanism, read from the mechanism itself
(:mod:`.organiser_mechanisms`), so that a newly registered mechanism is
offered with its parameters the moment it exists; only the chosen
mechanism's are read. Without a script every
mechanism's fields show, each under its name; ``desk.js`` shows the chosen
one's and limits the scores to those it takes.

The form starts on ladderboard's default (:data:`RECOMMENDED`), and every
field holds the value that runs if it is left as it is, which its help names
("Default: ..."): the mechanism's own default, or on the default mechanism
the recommended setting's. A parameter the recommended setting scales with
the holdout (``η = 1/√n``) is left empty until the solution file is chosen:
``desk.js`` counts its public rows and fills it in, and the engine fills it
the same way when it is left empty (:meth:`CompetitionConfig.explicit`).
The advisor's table (:mod:`.organiser_advice`) preselects another setting
only where it measured one better than the default by more than its
intervals.

A refusal shows the form again with every value as sent and one sentence
that names the field by its label, never the words of a Python exception.
A browser cannot put a chosen file back into a file field, so the files
read and found good (the solution parsed, the data files named and sized
well) are kept in the store for the next try
(:class:`~ladderboard.store.StagedUploads`, under a random draft id in a
hidden field, bound to the organiser's session, for two hours): the page
lists them, and the next submit uses them unless other files are chosen.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, cast

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException

from ladderboard.engine import Competitions
from ladderboard.engine.errors import NotFound
from ladderboard.files.solution import Solution
from ladderboard.losses import LOSSES, METRICS
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import BOARD_MODES, MAX_PRECISION, CompetitionConfig
from ladderboard.rules.text import check_json, check_slug
from ladderboard.server import organiser_advice
from ladderboard.server.api.shared import read_data_files, read_upload
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.errors import ApiError
from ladderboard.server.organiser_advice import ADVISOR_METRIC, BUDGET
from ladderboard.server.organiser_desk import desk
from ladderboard.server.organiser_forms import (
    DEFAULT_ZONE,
    calendar_words,
    deadline_in_utc,
    invalid,
    plain,
    time_zones,
    whole_number,
)
from ladderboard.server.organiser_mechanisms import display_name, mechanism_fields, mechanism_params
from ladderboard.server.organiser_session import (
    check_form,
    desk_user,
    organiser_page,
    session_cookie,
    sign_in_page,
    signed_in,
)
from ladderboard.server.rendering import REFUSALS, refusal, render
from ladderboard.server.roles import allows
from ladderboard.server.settings import Settings

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

DEFAULT_MECHANISM = RECOMMENDED.mechanism
MAX_DATA_FILES = 20
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(CompetitionConfig)}


def _score_params(text: str, score: str) -> dict[str, Any]:
    text = text.strip()
    if not text:
        return {}
    if score in METRICS and score not in LOSSES:
        raise invalid(f"loss parameters apply to a loss; leave them empty for the metric {score}")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        parsed = None
    if not isinstance(parsed, dict):
        raise invalid('loss parameters must be written like {"clip": 1e-15}, or left empty')
    try:
        return check_json("loss parameters", parsed)
    except ValueError as exc:
        raise invalid(str(exc)) from None


def read_config(values: dict[str, str]) -> CompetitionConfig:
    """The configuration the form's fields describe, or a refusal naming a field."""
    mechanism = values.get("mechanism", "")
    if mechanism not in COMPETITION_MECHANISMS:
        raise invalid("choose a mechanism from the list")
    score = values.get("score", "")
    if score not in LOSSES and score not in METRICS:
        raise invalid("choose a loss or a metric from the list")
    display = display_name(COMPETITION_MECHANISMS[mechanism])
    try:  # the score the mechanism takes, before its parameters
        CompetitionConfig(score=score, mechanism=mechanism)
    except ValueError as exc:
        message = str(exc).replace(f"mechanism {mechanism!r}", f"the {display}")
        raise invalid(plain(message, f"the {display} cannot score {score}")) from None
    params = mechanism_params(mechanism, values)
    board = values.get("board", "per-team")
    if board not in BOARD_MODES:
        raise invalid("choose a per-team or a per-rank board")
    zone = values.get("zone", DEFAULT_ZONE)
    opens_at = deadline_in_utc(values.get("opens_at", ""), zone, label="the opening time")
    freeze_at = deadline_in_utc(values.get("freeze_at", ""), zone, label="the freeze")
    deadline = deadline_in_utc(values.get("deadline", ""), zone)
    auto_publish = bool(values.get("auto_publish"))
    if auto_publish and deadline is None:
        raise invalid(
            "publishing the private board at the deadline needs a deadline: set one, "
            "or untick 'Publish automatically'"
        )
    number = whole_number
    options: dict[str, Any] = {
        "ranks": number("Ranks", values.get("ranks", ""), default=_DEFAULTS["ranks"]),
        "daily_quota": number(
            "Submissions a day",
            values.get("daily_quota", ""),
            default=_DEFAULTS["daily_quota"],
            allow_none=True,
        ),
        "total_quota": number(
            "Submissions in all",
            values.get("total_quota", ""),
            default=_DEFAULTS["total_quota"],
            allow_none=True,
        ),
        "invalid_quota": number(
            "Invalid files in all",
            values.get("invalid_quota", ""),
            default=_DEFAULTS["invalid_quota"],
            allow_none=True,
        ),
        "n_selections": number(
            "Final submissions a team selects",
            values.get("n_selections", ""),
            default=_DEFAULTS["n_selections"],
        ),
        "precision": number(
            "Decimals shown",
            values.get("precision", ""),
            default=_DEFAULTS["precision"],
            low=0,
            high=MAX_PRECISION,
        ),
    }
    megabytes = number(
        "Largest submission file in MB",
        values.get("max_megabytes", ""),
        default=_DEFAULTS["max_bytes"] // 2**20,
    )
    options["max_bytes"] = cast(int, megabytes) * 2**20  # a number: no "none" here
    score_params = _score_params(values.get("score_params", ""), score)
    try:
        return CompetitionConfig(
            score=score,
            mechanism=mechanism,
            mechanism_params=params,
            score_params=score_params,
            board=board,
            deadline=deadline,
            auto_publish=auto_publish,
            opens_at=opens_at,
            freeze_at=freeze_at,
            late_submissions=bool(values.get("late_submissions")),
            visibility=values.get("visibility") or "public",
            registration=values.get("registration") or "list",
            phase_of=values.get("phase_of", "").strip() or None,
            **options,
        )
    except TypeError as exc:
        if score_params:
            keys = ", ".join(sorted(score_params))
            raise invalid(f"the loss {score} does not take the parameters {keys}") from None
        raise invalid(plain(str(exc), f"the {display} cannot be set up so")) from None
    except ValueError as exc:
        message = str(exc).replace(f"mechanism {mechanism!r}", f"the {display}")
        message = calendar_words(message)
        raise invalid(plain(message, f"the {display} cannot be set up so")) from None


def _values(form: FormData) -> dict[str, str]:
    """The form's text fields (the last of a repeated name)."""
    return {key: value for key, value in form.items() if isinstance(value, str)}


def _uploads(form: FormData, key: str) -> list[UploadFile]:
    return [f for f in form.getlist(key) if isinstance(f, UploadFile) and f.filename]


def create_form(
    request: Request,
    settings: Settings,
    status: int = 200,
    values: dict[str, str] | None = None,
    **extra: Any,
) -> HTMLResponse:
    # A blank form starts on ladderboard's default; its fields fill themselves.
    values = values or {"mechanism": RECOMMENDED.mechanism}
    rows = [row for row in organiser_advice.ADVICE if row.mechanism in COMPETITION_MECHANISMS]
    advice = [
        {**dataclasses.asdict(row), "shown": row.shown, "command": row.command()} for row in rows
    ]
    default = {
        "mechanism": RECOMMENDED.mechanism,
        "label": RECOMMENDED.label,
        "params": RECOMMENDED.params,
        "per_root_n": RECOMMENDED.per_root_n,
    }
    data = {"rows": advice, "metrics": ADVISOR_METRIC, "default": default}
    return organiser_page(
        request,
        settings,
        "organiser_create.html",
        status,
        values=values,
        mechanisms=mechanism_fields(values),
        chosen_mechanism=values.get("mechanism", DEFAULT_MECHANISM),
        chosen_score=values.get("score", "zero_one"),
        losses=sorted(LOSSES),
        metrics=sorted(METRICS),
        defaults=_DEFAULTS,
        zones=time_zones(),
        advice=[row for row in advice if row["shown"]],
        # In a <script type="application/json">: no "<" may close it early.
        advice_json=json.dumps(data).replace("<", "\\u003c"),
        budget=BUDGET,
        recommended=RECOMMENDED,
        **extra,
    )


@router.get("/organiser/new", response_class=HTMLResponse)
def new_competition(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep
) -> HTMLResponse:
    user = desk_user(request, competitions, settings)
    if user is None:
        return sign_in_page(request, 401, next_path="/organiser/new")
    if not user.may_create:
        message = "Creating a competition needs an account whose role is organiser."
        return render(request, "message.html", 403, title="Forbidden", message=message)
    return create_form(request, settings)


@router.post("/organiser/competitions", response_class=HTMLResponse)
async def create_competition(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep
) -> HTMLResponse:
    """Create the competition and attach its data files; a refusal stores nothing."""
    try:
        form = await request.form(max_files=MAX_DATA_FILES + 1, max_fields=400)
    except HTTPException as exc:
        text = f"The form could not be read: {exc.detail}"
        return await run_in_threadpool(_unreadable, request, competitions, settings, text)
    try:
        return await run_in_threadpool(_create, request, competitions, settings, form)
    finally:
        await form.close()


def _unreadable(
    request: Request, competitions: Competitions, settings: Settings, text: str
) -> HTMLResponse:
    if not signed_in(request, competitions, settings):
        return sign_in_page(request, 400, error=text, next_path="/organiser/new")
    return create_form(request, settings, 400, error=text)


def _check_owner(
    request: Request, competitions: Competitions, settings: Settings, phase_of: str
) -> None:
    """Refuse (403) a phase of a series the desk's user does not own, in
    words that do not tell whether a competition of that slug exists."""
    user = desk_user(request, competitions, settings)
    try:
        first = competitions.phases(phase_of)[0].slug  # whichever of its phases is named
    except NotFound:
        first = phase_of
    if user is None or not allows(user.role(competitions, first), "owner"):
        raise ApiError(
            403,
            "forbidden",
            f"a phase is added to a competition you own: {phase_of!r} is not one of yours",
        )


def _create(
    request: Request, competitions: Competitions, settings: Settings, form: FormData
) -> HTMLResponse:
    """Read the files first, then the fields: a refusal keeps the files that
    were read and found good (:class:`~ladderboard.store.StagedUploads`),
    so the next try need not choose them again; files chosen anew replace
    the kept ones."""
    values = _values(form)
    solution_upload = _uploads(form, "solution")
    data_uploads = _uploads(form, "files")
    cookie = session_cookie(request)
    draft = values.get("draft", "")[:64]
    solution_file: tuple[str, bytes] | None = None
    data_files: list[tuple[str, bytes]] = []
    checked = False  # a form not checked to come from the session touches no draft
    try:
        acting = check_form(request, competitions, settings, values.get("csrf", ""))
        checked = True
        kept = competitions.drafts.kept(cookie, draft)
        solution_file = kept.solution
        data_files = list(kept.files)
        if solution_upload:
            solution_file = None  # a new choice: the kept one is dropped, good or not
            data = read_upload(solution_upload[0].file, settings.max_upload_bytes, "solution file")
            Solution.from_csv(data, max_bytes=settings.max_upload_bytes)  # refused: not kept
            solution_file = (solution_upload[0].filename or "solution.csv", data)
        if data_uploads:
            data_files = []
            if len(data_uploads) > MAX_DATA_FILES:
                raise invalid(f"at most {MAX_DATA_FILES} data files at once")
            data_files = read_data_files(data_uploads, settings)
        slug = values.get("slug", "").strip()
        try:
            check_slug(slug)
        except ValueError:
            raise invalid(
                "the slug (the competition's address) is 1 to 64 letters, digits, '-' or '_'"
            ) from None
        config = read_config(values)
        if config.phase_of is not None:
            _check_owner(request, competitions, settings, config.phase_of)
        if solution_file is None:
            raise invalid("choose the solution file")
        solution = Solution.from_csv(solution_file[1], max_bytes=settings.max_upload_bytes)
        display = display_name(COMPETITION_MECHANISMS[config.mechanism])
        try:
            info = acting.create(
                slug,
                solution,
                config,
                title=values.get("title", "").strip() or None,
                description=values.get("description", ""),
                rules=values.get("rules", ""),
                files=data_files,
            )
        except (TypeError, ValueError) as exc:
            message = str(exc).replace(f"mechanism {config.mechanism!r}: ", f"the {display}'s ")
            raise invalid(plain(message, f"the {display} cannot be set up so")) from None
    except REFUSALS as exc:
        status, text = refusal(exc)
        if not signed_in(request, competitions, settings):
            return sign_in_page(request, status, error=text, next_path="/organiser/new")
        if checked and (solution_file is not None or data_files or draft):
            draft = competitions.drafts.keep(cookie, draft, solution_file, data_files)
        return create_form(
            request,
            settings,
            status,
            values | {"draft": draft},
            error=text,
            kept_solution=_listed(solution_file),
            kept_files=[_listed(file) for file in data_files],
            choose_again=bool(solution_upload) and solution_file is None,
            choose_files_again=bool(data_uploads) and not data_files,
        )
    competitions.drafts.forget(cookie, draft)
    return desk(
        request,
        competitions,
        settings,
        info,
        201,
        created=info,
        created_files=[name for name, _ in data_files],
    )


def _listed(file: tuple[str, bytes] | None) -> dict[str, Any] | None:
    """A kept file as the form lists it: its name and size."""
    return None if file is None else {"name": file[0], "size": len(file[1])}
