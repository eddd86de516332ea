"""What the credentials Lookout hands out (wall links, API tokens) share. No Django.

Each is shown once and stored only as its SHA-256, under a name people choose.
"""

from __future__ import annotations

import hashlib


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_name(name: str, *, max_length: int, error: type[Exception], empty: str, what: str) -> str:
    """`name` on one line with single spaces; `error(empty)` if blank, or if too long."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise error(empty)
    if len(cleaned) > max_length:
        raise error(f"{what} has at most {max_length} characters.")
    return cleaned
