"""Passwords: argon2id hashes, checked whatever the stored parameters, and
the length policy."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from ladderboard.server.passwords import (
    MAX_PASSWORD_LENGTH,
    check_password,
    hash_password,
    password_problem,
)


@pytest.mark.slow
def test_a_hash_is_argon2id_salted_and_checks_only_its_password():
    first, second = hash_password("a passphrase of mine"), hash_password("a passphrase of mine")
    assert first.startswith("$argon2id$") and first != second  # a fresh salt each time
    assert check_password(first, "a passphrase of mine") == (True, False)
    assert check_password(first, "a passphrase of mine ") == (False, False)


def test_a_hash_made_with_other_parameters_still_checks_and_asks_for_a_new_one():
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("an older password")
    assert check_password(weak, "an older password") == (True, True)
    assert check_password(weak, "not that password") == (False, False)


def test_no_hash_or_a_broken_one_never_matches():
    assert check_password(None, "anything at all") == (False, False)
    assert check_password("not a hash", "anything at all") == (False, False)
    assert check_password(hash_password("x" * 10), "x" * (MAX_PASSWORD_LENGTH + 1)) == (
        False,
        False,
    )


def test_the_policy_names_what_is_wrong():
    assert password_problem("nine char", handle="ada") == (
        "the password must be at least 10 characters"
    )
    assert "at most 1024" in password_problem("x" * 1025, handle="ada")
    assert password_problem("ＡＤＡ-Lovelace", handle="ada-lovelace") == (
        "the password must not be the handle"
    )
    assert password_problem("ten chars!", handle="ada") is None
