"""Sign-ins under way (email links, OpenID Connect requests), as the web
edge reaches them through the engine: ``Competitions.sign_ins`` keeps them
in the store (:mod:`ladderboard.store.sign_ins`), which the web edge does
not import itself."""

from __future__ import annotations

from ladderboard.store.sign_ins import EmailLink, OidcRequest, SignIns

__all__ = ["EmailLink", "OidcRequest", "SignIns"]
