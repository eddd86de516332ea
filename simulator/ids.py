"""Deterministic identifiers, derived from the seed instead of stored.

Job, task and file UUIDs are never kept in memory: they are hashes of the
seed and the thing they name, so 5000 units cost nothing until asked for.
Task UUIDs can also be read back (the task endpoint needs to find the task):
the second half carries the task's location, masked by a hash of the first.
"""

from __future__ import annotations

import hashlib
import random
import uuid

_LOCATOR_BITS = 62  # what remains of the second half after the variant bits
_LOCATOR_MASK = (1 << _LOCATOR_BITS) - 1
_MAX_STEPS = 1 << 12
_MAX_TASKS = 1 << 20
_MAX_UNITS = 1 << 30


def random_uuid(rng: random.Random) -> str:
    """A version-4 UUID drawn from a seeded stream."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def derived_uuid(*parts: object) -> str:
    """A version-4 UUID that is a pure function of its parts."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode("utf-8"), digest_size=16).digest()
    return str(uuid.UUID(bytes=digest, version=4))


class TaskIds:
    """Encodes (unit number, step index, task index) as a random-looking UUID and back."""

    def __init__(self, seed: int) -> None:
        self._key = f"{seed}:task".encode()

    def _hash8(self, data: bytes) -> bytes:
        return hashlib.blake2b(self._key + data, digest_size=8).digest()

    def _head(self, locator: int) -> bytes:
        head = bytearray(self._hash8(locator.to_bytes(8, "big")))
        head[6] = (head[6] & 0x0F) | 0x40  # version 4
        return bytes(head)

    def encode(self, unit_number: int, step: int, task: int) -> str:
        if not (
            0 <= unit_number < _MAX_UNITS and 0 <= step < _MAX_STEPS and 0 <= task < _MAX_TASKS
        ):
            raise ValueError("task location out of range")
        locator = (unit_number << 32) | (step << 20) | task
        head = self._head(locator)
        mask = int.from_bytes(self._hash8(head), "big") & _LOCATOR_MASK
        tail = (locator ^ mask) | (0b10 << _LOCATOR_BITS)  # RFC 4122 variant
        return str(uuid.UUID(bytes=head + tail.to_bytes(8, "big")))

    def decode(self, text: str) -> tuple[int, int, int] | None:
        """The (unit number, step, task) a UUID from `encode` names, or None."""
        try:
            raw = uuid.UUID(text).bytes
        except ValueError:
            return None
        head, tail = raw[:8], int.from_bytes(raw[8:], "big")
        mask = int.from_bytes(self._hash8(head), "big") & _LOCATOR_MASK
        locator = (tail & _LOCATOR_MASK) ^ mask
        if self._head(locator) != head:
            return None
        return locator >> 32, (locator >> 20) & (_MAX_STEPS - 1), locator & (_MAX_TASKS - 1)
