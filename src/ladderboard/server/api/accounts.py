"""Accounts through the API: the caller's account and its personal tokens
(by a personal token: a script manages its own keys), and the accounts an
administrator creates, each with a one-time sign-in link for its owner."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import Response
from fastapi.routing import APIRouter

from ladderboard.engine.accounts import AccountInfo, ApiTokenInfo
from ladderboard.server.account_pages import base_url, handle_problem, label_problem
from ladderboard.server.api.shared import RowId, errors, invalid
from ladderboard.server.deps import (
    CallerDep,
    CompetitionsDep,
    OrganiserDep,
    SettingsDep,
    client_address,
    no_store,
    person_of,
)
from ladderboard.server.email_links import NEW_ACCOUNT_LINK_LIFETIME, email_problem
from ladderboard.server.schemas.accounts import (
    AccountCreated,
    AccountIn,
    AccountOut,
    ApiTokenCreated,
    ApiTokenIn,
    ApiTokenOut,
)

__all__ = ["account_out", "router"]

router = APIRouter(tags=["accounts"])


def account_out(account: AccountInfo) -> AccountOut:
    return AccountOut(
        id=account.id,
        handle=account.handle,
        email=account.email,
        email_verified=account.email_verified,
        role=account.role,  # type: ignore[arg-type]
        created_at=account.created_at,
    )


def _token_out(info: ApiTokenInfo) -> ApiTokenOut:
    return ApiTokenOut(
        id=info.id,
        label=info.label,
        created_at=info.created_at,
        last_used_at=info.last_used_at,
        revoked_at=info.revoked_at,
    )


def _created(info: ApiTokenInfo, token: str) -> ApiTokenCreated:
    return ApiTokenCreated(**_token_out(info).model_dump(), token=token)


def own_account(competitions: CompetitionsDep, who: CallerDep) -> AccountInfo:
    """Only a personal token's account: 401 without one (off a competition's
    paths, a team's or the organiser's token is no person's)."""
    return person_of(competitions, who)


AccountDep = Annotated[AccountInfo, Depends(own_account)]


@router.get(
    "/account",
    responses=errors(401, 429),
    response_model=AccountOut,
    summary="The account of the personal token",
)
def get_account(account: AccountDep) -> AccountOut:
    return account_out(account)


@router.get(
    "/account/tokens",
    responses=errors(401, 429),
    response_model=list[ApiTokenOut],
    summary="The account's personal tokens (never their secrets)",
)
def list_tokens(competitions: CompetitionsDep, account: AccountDep) -> list[ApiTokenOut]:
    return [_token_out(t) for t in competitions.accounts.tokens(account.id)]


@router.post(
    "/account/tokens",
    responses=errors(401, 422, 429),
    status_code=201,
    response_model=ApiTokenCreated,
    summary="A new personal token, its secret returned once",
)
def create_token(
    body: ApiTokenIn, response: Response, competitions: CompetitionsDep, account: AccountDep
) -> ApiTokenCreated:
    label = body.label.strip()
    problem = label_problem(label)
    if problem:
        raise invalid(problem)
    no_store(response)
    return _created(*competitions.accounts.create_token(account.id, label))


@router.delete(
    "/account/tokens/{token_id}",
    responses=errors(401, 404, 422, 429),
    status_code=204,
    summary="Revoke a personal token: refused from now on",
)
def revoke_token(token_id: RowId, competitions: CompetitionsDep, account: AccountDep) -> Response:
    competitions.accounts.revoke_token(account.id, token_id)  # NotFound: 404
    return Response(status_code=204)


@router.post(
    "/account/tokens/{token_id}/rotate",
    responses=errors(401, 404, 422, 429),
    response_model=ApiTokenCreated,
    summary="A new secret for a personal token, returned once; the old one is refused at once",
)
def rotate_token(
    token_id: RowId, response: Response, competitions: CompetitionsDep, account: AccountDep
) -> ApiTokenCreated:
    rotated = competitions.accounts.rotate_token(account.id, token_id)  # NotFound: 404
    no_store(response)
    return _created(*rotated)


@router.post(
    "/accounts",
    responses=errors(401, 403, 409, 422, 429),
    status_code=201,
    response_model=AccountCreated,
    summary="Create an account (administrator), with a one-time sign-in link for its owner",
)
def create_account(
    body: AccountIn,
    request: Request,
    response: Response,
    competitions: CompetitionsDep,
    settings: SettingsDep,
    administrator: OrganiserDep,
) -> AccountCreated:
    """The administrator token, or an account with the administrator's
    role (:func:`ladderboard.server.deps.organiser`: 401 without one, 403
    for another account)."""
    handle = body.handle.strip()
    email = body.email.strip().lower() if body.email and body.email.strip() else None
    problem = handle_problem(handle) or (email_problem(email) if email else None)
    if problem:
        raise invalid(problem)
    account = competitions.accounts.create(  # Conflict (409) for a taken handle
        handle, email=email, role=body.role, created_from=client_address(request)[:64]
    )
    token, expires_at = competitions.sign_ins.new_email_link(
        email or "", NEW_ACCOUNT_LINK_LIFETIME, account_id=account.id
    )
    no_store(response)
    return AccountCreated(
        account=account_out(account),
        sign_in_link=f"{base_url(request, settings)}/account/email-link?token={token}",
        expires_at=expires_at,
    )
