"""A competition as anyone may see it, its audit commitment, and what the
organiser may change while it runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from ladderboard.engine.results import CompetitionInfo
from ladderboard.rules.changes import SettingChange
from ladderboard.server.schemas.shared import DECIMALS

__all__ = [
    "VISIBILITY_FIELD",
    "CommitmentOut",
    "CompetitionOut",
    "CompetitionPatch",
    "SettingChangeOut",
]

Visibility = Literal["public", "unlisted", "private"]
VISIBILITY_FIELD = (
    "Who sees the competition: `public` (anyone; listed), `unlisted` (anyone with its "
    "address; not listed, not indexed) or `private` (only its teams, the accounts registered "
    "in it, its organisers and the administrators; to anyone else it does not exist)."
)


class CompetitionOut(BaseModel):
    """A competition as anyone may see it."""

    slug: str
    title: str
    description: str
    rules: str = Field(description="The rules, in Markdown (the description is the overview).")
    score: str
    greater_is_better: bool = Field(description="Whether a higher score is better.")
    mechanism: str
    mechanism_params: dict[str, Any]
    score_params: dict[str, Any] = Field(description="The parameters of the score's loss.")
    board: str
    ranks: int = Field(description="The ranks of a per-rank board.")
    daily_quota: int | None
    total_quota: int | None
    invalid_quota: int | None
    n_selections: int
    max_bytes: int = Field(description="The largest submission file, in bytes, compressed or not.")
    precision: int = Field(description="The most decimals a score is shown with.")
    created_at: datetime
    deadline: datetime | None
    opens_at: datetime | None = Field(
        description="When submissions open (none: at the creation); before it a file is refused."
    )
    freeze_at: datetime | None = Field(
        description="When the public board freezes: from then until the close it shows the "
        "board as it stood at this time."
    )
    late_submissions: bool = Field(
        description="Whether files sent after the publication are scored, on the late board."
    )
    visibility: Visibility = Field(description=VISIBILITY_FIELD)
    registration: str = Field(
        "list",
        description="How participants come in: the organiser's list, open to any account, "
        "or by invitation.",
    )
    max_team_size: int | None = Field(
        None, description="Most members of a team of accounts (none: no limit)."
    )
    merger_deadline: datetime | None = Field(
        None, description="Last moment two teams may merge (none: until the close)."
    )
    phase_of: str | None = Field(
        None,
        description="The first phase of the series this competition is a later phase of, "
        "whose teams it shares (none: a competition of its own, or a first phase).",
    )
    closed_at: datetime | None
    closed: bool
    auto_publish: bool = Field(
        description="Whether the private board is published at the deadline."
    )
    published_at: datetime | None = Field(
        description="When the private board was published and the audit key revealed."
    )
    published: bool
    n_public: int
    n_private: int
    commitment: str = Field(description="SHA-256 of the solution, its split and the key.")
    decimals: int = Field(description=DECIMALS)

    @classmethod
    def of(cls, info: CompetitionInfo, decimals: int) -> CompetitionOut:
        """``info`` as anyone may see it, its scores shown with ``decimals``
        (:meth:`~ladderboard.engine.Competitions.decimals`)."""
        config = info.config
        return cls(
            slug=info.slug,
            title=info.title,
            description=info.description,
            rules=info.rules,
            score=config.score,
            greater_is_better=config.scoring().direction.greater_is_better,
            mechanism=config.mechanism,
            mechanism_params=dict(config.mechanism_params),
            score_params=dict(config.score_params),
            board=config.board,
            ranks=config.ranks,
            daily_quota=config.daily_quota,
            total_quota=config.total_quota,
            invalid_quota=config.invalid_quota,
            n_selections=config.n_selections,
            max_bytes=config.max_bytes,
            precision=config.precision,
            created_at=info.created_at,
            deadline=info.deadline,
            opens_at=config.opens_at,
            freeze_at=config.freeze_at,
            late_submissions=config.late_submissions,
            visibility=cast(Visibility, config.visibility),  # CompetitionConfig checks it
            registration=config.registration,
            max_team_size=config.max_team_size,
            merger_deadline=config.merger_deadline,
            phase_of=config.phase_of,
            closed_at=info.closed_at,
            closed=info.is_closed(),
            auto_publish=config.auto_publish,
            published_at=info.published_at,
            published=info.is_published(),
            n_public=info.n_public,
            n_private=info.n_private,
            commitment=info.commitment,
            decimals=decimals,
        )


class CommitmentOut(BaseModel):
    slug: str
    commitment: str
    closed: bool
    published: bool
    key: str | None = Field(
        description="The random-stream key, revealed with the private board for "
        "`ladderboard verify`."
    )


_FIXED = "Fixed at creation: a value other than the competition's is refused (409)."
_NO_LIMIT = "A whole number of at least 1, or null for no limit. Open only."


class CompetitionPatch(BaseModel):
    """What the organiser may change while a competition runs; what is left
    out, or sent as it is, stays as it is. Each change is recorded
    (``GET /api/competitions/{slug}/history``). Limits apply from the change
    on, to what is left: nothing already submitted is taken back."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    description: str | None = Field(None, description="The overview, Markdown.")
    rules: str | None = Field(None, description="Markdown.")
    deadline: datetime | None = Field(
        None, description="A later deadline, with a time zone; null for none. Open only."
    )
    daily_quota: int | None = Field(
        None, description="Valid submissions a team a UTC day. " + _NO_LIMIT
    )
    total_quota: int | None = Field(
        None, description="Valid submissions a team in all. " + _NO_LIMIT
    )
    invalid_quota: int | None = Field(None, description="Refused files a team in all. " + _NO_LIMIT)
    n_selections: int | None = Field(
        None,
        description="Final submissions a team may select; refused (409) below what a team "
        "already selected. Open only.",
    )
    max_bytes: int | None = Field(
        None, description="The largest submission file, bytes. Open only."
    )
    precision: int | None = Field(None, description="The most decimals a score shows. Open only.")
    auto_publish: bool | None = Field(
        None, description="Publish the private board and the key at the deadline. Open only."
    )
    opens_at: datetime | None = Field(
        None,
        description="A new opening time in the future, with a time zone; null for none. "
        "Only while the opening is still in the future.",
    )
    freeze_at: datetime | None = Field(
        None,
        description="A new freeze time in the future, with a time zone; null for none. "
        "Only while the freeze is still in the future.",
    )
    late_submissions: bool | None = Field(
        None, description="Whether files sent after the publication are scored."
    )
    visibility: Visibility | None = Field(None, description=VISIBILITY_FIELD + " At any time.")
    registration: Literal["list", "open", "invitation"] | None = Field(
        None, description="How participants come in. Open only."
    )
    max_team_size: int | None = Field(
        None, description="Most members of a team of accounts. " + _NO_LIMIT
    )
    merger_deadline: datetime | None = Field(
        None,
        description="Last moment two teams may merge, with a time zone, before the deadline; "
        "null for none (until the close). Open only.",
    )
    score: str | None = Field(None, description=_FIXED)
    score_params: dict[str, Any] | None = Field(None, description=_FIXED)
    mechanism: str | None = Field(None, description=_FIXED)
    mechanism_params: dict[str, Any] | None = Field(None, description=_FIXED)
    board: str | None = Field(None, description=_FIXED)
    ranks: int | None = Field(None, description=_FIXED)


class SettingChangeOut(BaseModel):
    """One change of a competition's settings, as its Rules page shows it."""

    at: datetime = Field(description="When the change was made (UTC); it applies from then.")
    setting: str = Field(description="The setting's name, as in the competition's JSON.")
    old: Any = Field(description="The value before (null for a text, whose words are not kept).")
    new: Any = Field(description="The value after (null for a text).")
    words: str = Field(description="The change in plain words.")

    @classmethod
    def of(cls, change: SettingChange) -> SettingChangeOut:
        return cls(
            at=change.at, setting=change.setting, old=change.old, new=change.new, words=change.words
        )
