"""Rendered live regions, kept for one data generation and one short time bucket.

Pages poll every few seconds and most polls find nothing changed, so a live region's
HTML is cached under a key made of:
- the data generation, which every write a live region shows moves on (`bump`);
- a time bucket no longer than the region's refresh interval, so ages ("waiting 3 min")
  and stale banners are at most one refresh old, also when a poller stops and the
  generation stands still;
- the variant: what differs by who is looking (and, for HTML, the language).

The generation lives in the cache itself. When it is missing (a flush, an eviction, a
fresh start) a new one is drawn, so losing the cache only means rendering again; where
the cache keeps nothing at all (Redis down), every region is rendered for each request.
Only HTML without anything personal (no CSRF token, no user name) may go in here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar
from uuid import uuid4

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone, translation

GENERATION_KEY = "page-generation"
T = TypeVar("T")


def _new_generation() -> None:
    new_generation(GENERATION_KEY)


def new_generation(key: str) -> None:
    """Move the generation kept under `key` on: what was cached under the old one is
    not read again."""
    cache.set(key, uuid4().hex, timeout=None)


def generation_of(key: str) -> str | None:
    """The generation kept under `key`, drawn anew when missing (random, never a counter:
    a counter started again after a flush could meet entries of its earlier values);
    None where the cache keeps nothing."""
    value = cache.get(key)
    if value is None:
        cache.add(key, uuid4().hex, timeout=None)
        value = cache.get(key)
    return str(value) if value is not None else None


def bump() -> None:
    """Data a live region shows has changed (or is about to be committed).

    Moved on now, so a test or an autocommit write is seen at once, and again after the
    commit: a page rendered meanwhile from the old rows is then not kept."""
    _new_generation()
    transaction.on_commit(_new_generation)


def generation() -> str | None:
    return generation_of(GENERATION_KEY)


def cached_fragment(
    name: str, *, seconds: float, render: Callable[[], str], variant: str = ""
) -> str:
    """`render()`'s HTML, from the cache while the generation and time bucket last; one
    copy per interface language."""
    variant = f"{translation.get_language()}:{variant}"
    return str(cached_result(name, seconds=seconds, compute=render, variant=variant))


def cached_result(name: str, *, seconds: float, compute: Callable[[], T], variant: str = "") -> T:
    """`compute()`'s value (anything the cache can pickle, never None), from the cache
    while the generation and time bucket last: a query over a long history run once per
    change of the data instead of once per request."""
    current = generation()
    if current is None:
        return compute()
    bucket = math.floor(timezone.now().timestamp() / seconds)
    key = f"live:{name}:{variant}:{current}:{seconds}:{bucket}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, timeout=math.ceil(seconds) + 1)
    return value  # type: ignore[no-any-return]
