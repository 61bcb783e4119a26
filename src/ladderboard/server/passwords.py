"""Accounts' passwords: hashed with argon2id (RFC 9106) through argon2-cffi,
checked in constant time, and held to a length policy.

A hash carries its own parameters (``$argon2id$v=19$m=...,t=...,p=...``), so
raising them later needs no migration: :func:`check_password` says when a
stored hash was made with other parameters, and the caller stores a new one
made from the password it has just checked.

>>> stored = hash_password("correct horse battery")
>>> stored.startswith("$argon2id$")
True
>>> check_password(stored, "correct horse battery"), check_password(stored, "wrong one!!")
((True, False), (False, False))
>>> password_problem("short", handle="ada")
'the password must be at least 10 characters'
>>> password_problem("ada-lovelace", handle="Ada-Lovelace")
'the password must not be the handle'
>>> password_problem("a long enough password", handle="ada") is None
True
"""

from __future__ import annotations

import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ladderboard.rules.text import name_key

__all__ = [
    "MAX_PASSWORD_LENGTH",
    "MIN_PASSWORD_LENGTH",
    "check_password",
    "hash_password",
    "password_problem",
]

MIN_PASSWORD_LENGTH = 10
# argon2 takes any length, but a megabyte of "password" costs the server a
# hash of a megabyte; no passphrase a person types is longer than this.
MAX_PASSWORD_LENGTH = 1024

# argon2-cffi's defaults are RFC 9106's second recommended option (64 MiB,
# 3 passes, 4 lanes), argon2id.
_HASHER = PasswordHasher()


@functools.cache
def _absent() -> str:
    """A hash to check against when there is no account: a sign-in for an
    unknown handle then takes as long as one for a known handle with a
    wrong password. Made on first use, not at import (a hash costs 64 MiB
    and tens of milliseconds, which every worker would pay at start)."""
    return _HASHER.hash("no account has this password")


def hash_password(password: str) -> str:
    """The argon2id hash of ``password``, with a fresh random salt."""
    return _HASHER.hash(password)


def check_password(stored: str | None, password: str) -> tuple[bool, bool]:
    """``(matches, needs_rehash)``: whether ``password`` is the one of the
    hash ``stored``, and (when it is) whether ``stored`` was made with other
    parameters than today's, so that the caller stores
    :func:`hash_password` of it again. ``stored`` ``None`` (no account, or
    one without a password) still costs one hash, and never matches."""
    if len(password) > MAX_PASSWORD_LENGTH:
        return False, False
    try:
        _HASHER.verify(stored or _absent(), password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False, False
    if stored is None:
        return False, False
    return True, _HASHER.check_needs_rehash(stored)


def password_problem(password: str, *, handle: str) -> str | None:
    """Why ``password`` may not be an account's (the sentence a form shows),
    or ``None``: at least :data:`MIN_PASSWORD_LENGTH` characters, at most
    :data:`MAX_PASSWORD_LENGTH`, and not the account's handle (under case
    and Unicode folding)."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"the password must be at least {MIN_PASSWORD_LENGTH} characters"
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"the password must be at most {MAX_PASSWORD_LENGTH} characters"
    if name_key(password) == name_key(handle):
        return "the password must not be the handle"
    return None
