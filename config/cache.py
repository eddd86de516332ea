"""Django's Redis cache, made to treat an unreachable Redis as an empty cache.

The cache only caches (docs/architecture.md: the rule of each store), so while Redis is
down a page renders from the database what it can, says "fetching" for the rest, and
nothing fails: reads give their default, writes are dropped, `add` answers False (so
nothing is queued twice), and one warning a minute says why. When Redis is back, the
connection pool reconnects by itself: no restart. /healthz still reports the cache as down.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger("dashboard.cache")
T = TypeVar("T")
WARN_EVERY = 60.0
_last_warning = 0.0


def _tolerant(fallback: Callable[..., T]) -> Callable[[Callable[..., T]], Callable[..., T]]:
    def decorate(method: Callable[..., T]) -> Callable[..., T]:
        def wrapped(self: RedisCache, *args: Any, **kwargs: Any) -> T:
            global _last_warning
            try:
                return method(self, *args, **kwargs)
            except (RedisConnectionError, RedisTimeoutError) as exc:
                now = time.monotonic()
                if now - _last_warning >= WARN_EVERY:
                    _last_warning = now
                    logger.warning("Cache unavailable, answering without it: %s", exc)
                return fallback(*args, **kwargs)

        wrapped.__name__ = method.__name__
        wrapped.__doc__ = method.__doc__
        return wrapped

    return decorate


def _default(key: Any, default: Any = None, *args: Any, **kwargs: Any) -> Any:
    return default


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


def _false(*args: Any, **kwargs: Any) -> bool:
    return False


def _empty(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return {}


def _all_failed(data: dict[str, Any], *args: Any, **kwargs: Any) -> list[str]:
    return list(data)


class ResilientRedisCache(RedisCache):
    get = _tolerant(_default)(RedisCache.get)
    get_many = _tolerant(_empty)(RedisCache.get_many)
    has_key = _tolerant(_false)(RedisCache.has_key)
    add = _tolerant(_false)(RedisCache.add)
    set = _tolerant(_nothing)(RedisCache.set)
    set_many = _tolerant(_all_failed)(RedisCache.set_many)
    touch = _tolerant(_false)(RedisCache.touch)
    delete = _tolerant(_false)(RedisCache.delete)
    delete_many = _tolerant(_nothing)(RedisCache.delete_many)
    clear = _tolerant(_nothing)(RedisCache.clear)
