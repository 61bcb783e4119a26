"""The organiser's desk, one page per competition (``/organiser/c/{slug}``).

What an organiser of Kaggle, Codabench or EvalAI runs a competition from:
the teams with their activity (sortable by each column, 50 a page), the
duplicate flags, the accounts that look like one person's, the title,
overview and rules, the deadline, the settings that may change while it
runs (quotas, final selections, file size, decimals, automatic publication)
with their history, and the data files, each with the form that edits it,
and the private board once the competition is closed. Teams are added,
imported, disabled and looked at in :mod:`.organiser_teams`; closing and
publishing, each behind a confirmation page, are :mod:`.organiser_closing`;
the export and the audit bundle, :mod:`.organiser_exports`.

Every form posts with the session's CSRF value (:func:`check_form`); a
refusal leaves the competition as it was and says why in one sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, cast
from urllib.parse import urlencode

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException

from ladderboard.engine import Competitions
from ladderboard.engine.look_alikes import WINDOW as LOOK_ALIKE_WINDOW
from ladderboard.engine.results import CompetitionInfo, TeamSummary, now_utc
from ladderboard.mechanisms import COMPETITION_MECHANISMS
from ladderboard.rules.config import MAX_PRECISION, REGISTRATIONS
from ladderboard.server.api.competitions import ORGANISER
from ladderboard.server.api.organisers import organisers_of
from ladderboard.server.api.shared import read_data_files
from ladderboard.server.deps import CompetitionsDep, SettingsDep
from ladderboard.server.errors import ApiError, sentence
from ladderboard.server.organiser_forms import (
    DEFAULT_ZONE,
    calendar_words,
    deadline_in_utc,
    invalid,
    local_fields,
    time_zones,
    whole_number,
)
from ladderboard.server.organiser_session import (
    check_form,
    check_role,
    desk_user,
    organiser_page,
    sign_in_page,
)
from ladderboard.server.rendering import REFUSALS, find, not_found, refusal, render
from ladderboard.server.roles import allows
from ladderboard.server.settings import Settings

__all__ = ["PAGE_SIZE", "SORTS", "View", "desk", "find_signed_in", "refused", "router"]

router = APIRouter(include_in_schema=False)

PAGE_SIZE = 50
ACTIONS_SHOWN = 200
"""The most entries of the action log the desk shows, the newest."""


@dataclass(frozen=True)
class Column:
    """A column of the teams table: its heading, the key it sorts by, and
    the direction a first click sorts it in."""

    heading: str
    key: Callable[[TeamSummary], Any]
    first: str = "desc"
    numeric: bool = True


SORTS: dict[str, Column] = {
    "team": Column("Team", lambda t: (t.name.casefold(), t.name), "asc", numeric=False),
    "submissions": Column("Submissions", lambda t: t.submissions),
    "last": Column(
        "Last submission",
        lambda t: (t.last_submission is not None, t.last_submission),
        numeric=False,
    ),
    "today": Column("Used today", lambda t: t.used_today),
    "invalid": Column("Invalid files", lambda t: t.invalid),
    "flags": Column("Duplicate flags", lambda t: t.flags),
    "state": Column("State", lambda t: t.disabled, numeric=False),
}
DEFAULT_SORT = ("team", "asc")


@dataclass(frozen=True)
class View:
    """Which slice of the teams table is shown."""

    sort: str = DEFAULT_SORT[0]
    dir: str = DEFAULT_SORT[1]
    page: int = 1

    @classmethod
    def of(cls, sort: str, dir: str, page: str) -> View:
        """The view the query asks for; what it gets wrong falls back to the default."""
        if sort not in SORTS:
            sort, dir = DEFAULT_SORT
        if dir not in ("asc", "desc"):
            dir = SORTS[sort].first
        number = int(page) if page.isdigit() and len(page) < 7 else 1
        return cls(sort, dir, max(1, number))

    def query(self, **changes: Any) -> str:
        values = {"sort": self.sort, "dir": self.dir, "page": self.page, **changes}
        return "?" + urlencode(values)

    def link(self, column: str) -> str:
        """The link of a column's heading: the other direction when the table
        is sorted by it, else its first direction; back to page 1."""
        if column == self.sort:
            return self.query(dir="asc" if self.dir == "desc" else "desc", page=1)
        return self.query(sort=column, dir=SORTS[column].first, page=1)

    def aria_sort(self, column: str) -> str | None:
        if column != self.sort:
            return None
        return "ascending" if self.dir == "asc" else "descending"


def sorted_teams(teams: list[TeamSummary], view: View) -> list[TeamSummary]:
    """The teams in the view's order; ties in the order of their names."""
    by_name = sorted(teams, key=SORTS["team"].key)
    return sorted(by_name, key=SORTS[view.sort].key, reverse=view.dir == "desc")


def _status(info: CompetitionInfo) -> str:
    if info.is_published():
        return "published"
    return "closed" if info.is_closed() else "open"


def desk(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    info: CompetitionInfo,
    status: int = 200,
    view: View | None = None,
    **extra: Any,
) -> HTMLResponse:
    """The desk of ``info`` as it is now, with ``extra`` (a message, a form's values)."""
    info = competitions.competition(info.slug)
    view = view or View()
    teams = sorted_teams(competitions.team_summaries(info.slug), view)
    pages = max(1, -(-len(teams) // PAGE_SIZE))
    view = View(view.sort, view.dir, min(view.page, pages))
    start = (view.page - 1) * PAGE_SIZE
    user = desk_user(request, competitions, settings)
    role = user.role(competitions, info.slug) if user is not None else None
    # Look-alike flags show email and client addresses: the owners' only.
    look_alikes = competitions.look_alikes(info.slug) if allows(role, "owner") else []
    private = None
    if info.is_closed():
        private = competitions.leaderboard(info.slug, "private", organiser=True)
    extra.setdefault("zone", DEFAULT_ZONE)
    return organiser_page(
        request,
        settings,
        "organiser_desk.html",
        status,
        competition=info,
        state=_status(info),
        teams=teams[start : start + PAGE_SIZE],
        team_count=len(teams),
        first_row=start + 1,
        pages=pages,
        view=view,
        columns=SORTS,
        flags=competitions.flags(info.slug),
        look_alikes=[f for f in look_alikes if not f.dismissed],
        dismissed_look_alikes=[f for f in look_alikes if f.dismissed],
        look_alike_minutes=int(LOOK_ALIKE_WINDOW.total_seconds() // 60),
        files=competitions.files(info.slug),
        audit=competitions.audit_publication(info.slug),
        private=private,
        precision=info.config.precision,
        zones=time_zones(),
        deadline_local=local_fields(info.deadline),
        mechanisms=sorted(COMPETITION_MECHANISMS),
        settings_now=settings_fields(info),
        calendar_editable=calendar_editable(info),
        history=competitions.history(info.slug),
        registered=competitions.registrations.registered(info.slug),
        invitations=competitions.invitations.invitations(info.slug),
        registration_now=competitions.context.now(),
        role=role,
        owner=allows(role, "owner"),
        organisers=organisers_of(competitions, info.slug),
        actions=competitions.accounts.actions(info.slug, limit=ACTIONS_SHOWN),
        **extra,
    )


def find_signed_in(request: Request, competitions: Competitions, settings: Settings, slug: str):
    """The competition of the page, or the response to give instead (sign
    in, not found, or a refusal for want of the page's role)."""
    user = desk_user(request, competitions, settings)
    if user is None:
        return None, sign_in_page(request, 401, next_path=request.url.path)
    try:
        check_role(request, competitions, user)
    except ApiError as exc:
        if find(request, competitions, slug) is None:
            return None, not_found(request, slug)
        page = render(
            request, "message.html", 403, title="Forbidden", message=sentence(exc.message)
        )
        return None, page
    info = find(request, competitions, slug)
    if info is None:
        return None, not_found(request, slug)
    return info, None


def refused(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    exc: Exception,
    view: View | None = None,
    **extra: Any,
) -> HTMLResponse:
    """The refusal of a desk form: the sign-in page without a session, the
    refusal alone to a browser that may not read the desk, else the desk."""
    status, text = refusal(exc)
    user = desk_user(request, competitions, settings)
    if user is None:
        return sign_in_page(request, status, error=text, next_path=f"/organiser/c/{slug}")
    info = find(request, competitions, slug)
    if info is None:
        return not_found(request, slug)
    if not allows(user.role(competitions, slug), "co-organiser"):
        return render(request, "message.html", status, title="Refused", message=sentence(text))
    return desk(request, competitions, settings, info, status, view, error=text, **extra)


# ---------------------------------------------------------------------- desk
@router.get("/organiser/c/{slug}", response_class=HTMLResponse)
def desk_page(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    sort: str = "",
    dir: str = "",
    page: str = "1",
) -> HTMLResponse:
    info, other = find_signed_in(request, competitions, settings, slug)
    if info is None:
        return other
    return desk(request, competitions, settings, info, view=View.of(sort, dir, page))


# ------------------------------------------------------------ what teams read
@router.post("/organiser/c/{slug}/details", response_class=HTMLResponse)
def edit_details(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    description: Annotated[str, Form()] = "",
    rules: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """The title, the overview and the rules (Markdown), at any time."""
    values = {"title": title, "description": description, "rules": rules}
    try:
        acting = check_form(request, competitions, settings, csrf)
        try:
            info = acting.update(
                slug, title=title.strip(), description=description, rules=rules, actor=ORGANISER
            )
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc, details=values)
    return desk(
        request, competitions, settings, info, done="The title, overview and rules are saved."
    )


@router.post("/organiser/c/{slug}/deadline", response_class=HTMLResponse)
def change_deadline(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    deadline: Annotated[str, Form()] = "",
    zone: Annotated[str, Form()] = DEFAULT_ZONE,
    no_deadline: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """A new deadline in the future (in ``zone``, stored in UTC), or none,
    while the competition is open."""
    try:
        acting = check_form(request, competitions, settings, csrf)
        when = None if no_deadline else deadline_in_utc(deadline, zone)
        if when is None and not no_deadline:
            raise invalid("choose the new deadline's date and time, or tick 'No deadline'")
        try:
            info = acting.update(slug, deadline=when, actor=ORGANISER)
        except ValueError as exc:
            raise invalid(str(exc)) from None
    except REFUSALS as exc:
        return refused(
            request, competitions, settings, slug, exc, deadline_value=deadline, zone=zone
        )
    done = (
        "The competition has no deadline now: close it here."
        if when is None
        else (f"The deadline is now {when:%Y-%m-%d %H:%M} UTC.")
    )
    return desk(request, competitions, settings, info, done=done)


# ------------------------------------------------------------------ settings
LIMITS = (
    "daily_quota",
    "total_quota",
    "invalid_quota",
    "n_selections",
    "max_megabytes",
    "precision",
    "max_team_size",
)
"""The settings form's fields of the limits, offered while the competition is open."""
CALENDAR_FIELDS = (("opens_at", "the opening time"), ("freeze_at", "the freeze"))
"""The calendar's times on the settings form, each with the words its refusals use."""


def calendar_editable(info: CompetitionInfo) -> dict[str, bool]:
    """Which of the calendar's times the settings form offers: while the
    competition is open, the opening time while it is set and still ahead
    (one not set was the creation), the freeze while none is set or it is
    still ahead (the engine refuses the others: :meth:`Competitions.update`)."""
    now = info.read_at or now_utc()
    config = info.config
    is_open = not info.is_closed()
    return {
        "opens_at": is_open and config.opens_at is not None and config.opens_at > now,
        "freeze_at": is_open and (config.freeze_at is None or config.freeze_at > now),
    }


def settings_fields(info: CompetitionInfo, zone: str = DEFAULT_ZONE) -> dict[str, str]:
    """The settings form's fields as the competition has them now, its
    times shown in ``zone``."""
    config = info.config

    def limit(value: int | None) -> str:
        return "none" if value is None else str(value)

    return {
        "daily_quota": limit(config.daily_quota),
        "total_quota": limit(config.total_quota),
        "invalid_quota": limit(config.invalid_quota),
        "n_selections": str(config.n_selections),
        "max_megabytes": f"{config.max_bytes / 2**20:g}",
        "precision": str(config.precision),
        "max_team_size": limit(config.max_team_size),
        "auto_publish": "1" if config.auto_publish else "",
        "opens_at": local_fields(config.opens_at, zone),
        "freeze_at": local_fields(config.freeze_at, zone),
        "zone": zone,
        "late_submissions": "1" if config.late_submissions else "",
        "visibility": config.visibility,
        "registration": config.registration,
    }


def read_settings(values: dict[str, str | None], info: CompetitionInfo) -> dict[str, Any]:
    """The settings the form's fields ask for, each refusal naming its field
    by its label; a field left as the desk showed it is not a change (a
    file-size limit set over the API in bytes stays as it is, a time set
    to the second stays to the second), nor is a field the form did not
    offer (``None``: the limits once closed, a time already passed)."""
    zone = (values.get("zone") or DEFAULT_ZONE).strip()
    try:
        now = settings_fields(info, zone)
    except (ValueError, KeyError):  # not a zone: deadline_in_utc names it below
        now = settings_fields(info)
    asked: dict[str, Any] = {}
    for name, label, allow_none, low, high in (
        ("daily_quota", "Submissions a day", True, 1, None),
        ("total_quota", "Submissions in all", True, 1, None),
        ("invalid_quota", "Invalid files in all", True, 1, None),
        ("n_selections", "Final submissions a team selects", False, 1, None),
        ("max_megabytes", "Largest submission file in MB", False, 1, None),
        ("precision", "Decimals shown", False, 0, MAX_PRECISION),
        ("max_team_size", "Largest team", True, 1, None),
    ):
        sent = values.get(name)
        if sent is None or sent.strip() == now[name]:
            continue
        text = sent.strip()
        if not text:
            wanted = "a whole number or 'none'" if allow_none else "a whole number"
            raise invalid(f"{label} must be {wanted}, not empty")
        asked[name] = whole_number(
            label, text, default=None, allow_none=allow_none, low=low, high=high
        )
    if "max_megabytes" in asked:
        asked["max_bytes"] = cast(int, asked.pop("max_megabytes")) * 2**20
    # The box is read where the limits were offered: unticked, it sends nothing.
    auto_publish = bool(values.get("auto_publish"))
    if values.get("daily_quota") is not None and auto_publish != info.config.auto_publish:
        if auto_publish and info.deadline is None:
            raise invalid(
                "publishing the private board at the deadline needs a deadline: set one "
                "first, or untick 'Publish automatically'"
            )
        asked["auto_publish"] = auto_publish
    for name, label in CALENDAR_FIELDS:
        sent = values.get(name)
        if sent is None or sent.strip() == now[name]:
            continue
        asked[name] = deadline_in_utc(sent, zone, label=label)  # empty: none
    late_submissions = bool(values.get("late_submissions"))
    if late_submissions != info.config.late_submissions:
        asked["late_submissions"] = late_submissions
    visibility = (values.get("visibility") or "").strip()
    if visibility and visibility != info.config.visibility:
        asked["visibility"] = visibility  # checked by the configuration: a refusal names it
    registration = values.get("registration")
    if registration is not None and registration != info.config.registration:
        if registration not in REGISTRATIONS:
            raise invalid(f"Registration must be one of {', '.join(REGISTRATIONS)}")
        asked["registration"] = registration
    return asked


SETTINGS_FIELDS = (
    *LIMITS,
    "auto_publish",
    "opens_at",
    "freeze_at",
    "zone",
    "late_submissions",
    "visibility",
    "registration",
)
"""The settings form's fields."""


@router.post("/organiser/c/{slug}/settings", response_class=HTMLResponse)
async def change_settings(
    request: Request, competitions: CompetitionsDep, settings: SettingsDep, slug: str
) -> HTMLResponse:
    """The quotas, the final selections, the largest file, the decimals
    shown and automatic publication while the competition is open; the
    opening time and the freeze (in ``zone``, stored in UTC) while they are
    still ahead; late submissions and the visibility at any time. Each change is recorded and
    shown on the Rules page. The form is read as sent: a field left empty
    (a freeze taken away) is not one the form did not offer."""
    try:
        form = await request.form(max_files=0, max_fields=50)
    except HTTPException as exc:
        unread = invalid(f"the form could not be read: {exc.detail}")
        return await run_in_threadpool(refused, request, competitions, settings, slug, unread)
    sent = {key: value for key, value in form.items() if isinstance(value, str)}
    values = {name: sent.get(name) for name in SETTINGS_FIELDS}
    return await run_in_threadpool(
        _change_settings, request, competitions, settings, slug, sent.get("csrf", ""), values
    )


def _change_settings(
    request: Request,
    competitions: Competitions,
    settings: Settings,
    slug: str,
    csrf: str,
    values: dict[str, str | None],
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        asked = read_settings(values, info)
        recorded = len(competitions.history(slug))
        try:
            info = acting.update(slug, actor=ORGANISER, **asked)
        except (TypeError, ValueError) as exc:
            raise invalid(calendar_words(str(exc))) from None
    except REFUSALS as exc:
        kept = {name: value or "" for name, value in values.items()}
        return refused(request, competitions, settings, slug, exc, setting_values=kept)
    changes = competitions.history(slug)[recorded:]
    if not changes:
        done = "Nothing changed: every setting is as it was."
    else:
        done = "Saved: " + "; ".join(change.words for change in changes) + "."
    return desk(request, competitions, settings, info, done=done)


# ------------------------------------------------------------------ data files
@router.post("/organiser/c/{slug}/files", response_class=HTMLResponse)
def upload_files(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    files: Annotated[list[UploadFile], File()] = [],  # noqa: B006 (FastAPI copies it)
    replace: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Data files for the participants; a name already used is refused unless
    ``replace`` is ticked. The names are checked before any file is stored."""
    try:
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        chosen = [f for f in files if f.filename]
        if not chosen:
            raise invalid("choose one or more data files to upload")
        uploads = read_data_files(chosen, settings)
        if not replace:
            taken = {f.name for f in competitions.files(slug)} & {name for name, _ in uploads}
            if taken:
                raise invalid(
                    f"{', '.join(sorted(taken))} is already a file here: tick "
                    "'Replace files of the same name' to replace it"
                )
        acting.add_files(slug, uploads, replace=bool(replace))  # all or none
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    names = ", ".join(name for name, _ in uploads)
    return desk(request, competitions, settings, info, done=f"Uploaded {names}.")


@router.post("/organiser/c/{slug}/files/remove", response_class=HTMLResponse)
def remove_file(
    request: Request,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    slug: str,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        acting = check_form(request, competitions, settings, csrf)
        info = competitions.competition(slug)
        acting.remove_file(slug, name)
    except REFUSALS as exc:
        return refused(request, competitions, settings, slug, exc)
    return desk(request, competitions, settings, info, done=f"Removed {name}.")
