"""Keyed, replayable random streams.

Every random draw a mechanism makes (Laplace or Gaussian noise, bootstrap
counts, Dirichlet weights) decides what a participant sees. In a live
competition those draws must be unpredictable to participants, yet an organiser
who holds the key must be able to replay them bit for bit in an audit.

:class:`KeyedStream` provides this with AES-128 in counter mode, a standard
construction for a cryptographically secure generator (NIST SP 800-90A's
CTR_DRBG is built on it), through ``randomgen``'s ``AESCounter`` bit generator,
which feeds numpy's :class:`numpy.random.Generator` directly (AES-NI where the
CPU has it, a portable implementation with identical output otherwise).

The stream is *counter-addressed*: the draws for submission ``t`` come from the
keystream blocks starting at counter ``t * 2**64`` (plus ``s * 2**40`` for a
sub-stream ``s``), so they depend only on the key and on ``(t, s)``, never on
how many numbers earlier submissions consumed. Saving a mechanism therefore
needs only its key and its submission count, and independent sub-streams can be
generated in parallel threads with results that do not depend on the thread
count.

Honest limits: the key is 128 bits; anyone who learns it can predict every
future draw, so it is stored with the organiser's secrets and revealed only
after a competition closes. An integer ``random_state`` derives the key by
SHA-256 from the integer, which is meant for tests and simulations, not for a
live competition (a seed is guessable).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TypeAlias

import numpy as np
import randomgen
from randomgen import AESCounter

__all__ = ["DRAW_VERSIONS", "KeyedStream", "RandomState"]

DRAW_VERSIONS = f"numpy {np.__version__}; randomgen {randomgen.__version__}"
"""The packages whose code turns a key into draws, and their versions here.
``randomgen``'s ``AESCounter`` gives the bits, fixed by AES itself; numpy's
:class:`~numpy.random.Generator` turns them into normal, Laplace, integer,
Poisson and Dirichlet draws, and numpy may change how between releases (NEP
19 keeps only the bit generators' streams stable). A store keeps the value
with each submission the mechanism drew for, so that an audit knows with
which versions to run again."""


_KEY_BYTES = 16
_SUBMISSION_SHIFT = 64
_SUBSTREAM_SHIFT = 40
_MAX_SUBSTREAM = 1 << (_SUBMISSION_SHIFT - _SUBSTREAM_SHIFT)


class KeyedStream:
    """A secret 128-bit key and the AES-CTR streams it addresses.

    Parameters
    ----------
    key : bytes
        The 16-byte AES key.

    Examples
    --------
    >>> stream = KeyedStream.from_random_state(42)
    >>> a = stream.generator(3).random(2)
    >>> b = KeyedStream.from_hex(stream.key_hex).generator(3).random(2)
    >>> bool((a == b).all())
    True
    >>> bool((stream.generator(3).random(2) == stream.generator(4).random(2)).any())
    False
    """

    __slots__ = ("_key",)

    def __init__(self, key: bytes):
        if not isinstance(key, bytes | bytearray):
            raise TypeError(f"key must be bytes, got {type(key).__name__}")
        if len(key) != _KEY_BYTES:
            raise ValueError(f"key must be {_KEY_BYTES} bytes, got {len(key)}")
        self._key = bytes(key)

    @classmethod
    def from_random_state(cls, random_state: object) -> KeyedStream:
        """Build a stream from the one randomness argument every class takes.

        ``None`` draws a fresh secret key from the operating system's entropy;
        an ``int`` derives a key by SHA-256 (reproducible, for tests and
        simulations); a 32-character hex string or 16 bytes is a key itself
        (for replaying a revealed key); a :class:`KeyedStream` is used as is.
        """
        if random_state is None:
            return cls(secrets.token_bytes(_KEY_BYTES))
        if isinstance(random_state, KeyedStream):
            return random_state
        if isinstance(random_state, bool):
            raise TypeError("random_state must be an int seed, a key or None, got bool")
        if isinstance(random_state, int | np.integer):
            digest = hashlib.sha256(f"ladderboard/seed/{int(random_state)}".encode()).digest()
            return cls(digest[:_KEY_BYTES])
        if isinstance(random_state, str):
            return cls.from_hex(random_state)
        if isinstance(random_state, bytes | bytearray):
            return cls(bytes(random_state))
        raise TypeError(
            "random_state must be None, an int seed, a hex key or a KeyedStream, "
            f"got {type(random_state).__name__}"
        )

    @classmethod
    def from_hex(cls, key_hex: str) -> KeyedStream:
        """Rebuild a stream from :attr:`key_hex`."""
        try:
            key = bytes.fromhex(key_hex)
        except ValueError as exc:
            raise ValueError(f"key must be {2 * _KEY_BYTES} hex digits, got {key_hex!r}") from exc
        return cls(key)

    @property
    def key_hex(self) -> str:
        """The key as hex: secret while the competition runs."""
        return self._key.hex()

    def derive(self, label: str) -> KeyedStream:
        """An independent stream for ``label`` (HMAC-SHA-256 of the label
        under this key): one master key serves every team's mechanism.

        >>> master = KeyedStream.from_random_state(0)
        >>> master.derive("team:1") == master.derive("team:1") != master.derive("team:2")
        True
        """
        digest = hmac.new(self._key, f"ladderboard/derive/{label}".encode(), "sha256").digest()
        return KeyedStream(digest[:_KEY_BYTES])

    def commitment(self) -> str:
        """SHA-256 of the key, safe to publish before the key is revealed."""
        return hashlib.sha256(b"ladderboard/key/" + self._key).hexdigest()

    def generator(self, index: int, substream: int = 0) -> np.random.Generator:
        """The numpy generator for submission ``index``, sub-stream ``substream``.

        Each ``(index, substream)`` pair addresses 2**40 AES blocks (16 TiB) of
        keystream of its own.
        """
        if not 0 <= index < (1 << 64):
            raise ValueError(f"index must be in [0, 2**64), got {index}")
        if not 0 <= substream < _MAX_SUBSTREAM:
            raise ValueError(f"substream must be in [0, {_MAX_SUBSTREAM}), got {substream}")
        counter = (index << _SUBMISSION_SHIFT) | (substream << _SUBSTREAM_SHIFT)
        key = int.from_bytes(self._key, "little")
        return np.random.Generator(AESCounter(key=key, counter=counter))

    def __repr__(self) -> str:
        return f"KeyedStream(commitment={self.commitment()[:12]}…)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyedStream) and secrets.compare_digest(self._key, other._key)

    def __hash__(self) -> int:
        return hash(self.commitment())


RandomState: TypeAlias = int | str | bytes | KeyedStream | None
"""What ``random_state`` accepts: see :meth:`KeyedStream.from_random_state`."""
