"""One REDIS_URL, three uses kept apart: the cache, the Celery broker and (if ever kept)
task results each get their own Redis database, numbered up from the URL's.

With LOOKOUT_REDIS_SEPARATE_DATABASES=false (a managed Redis with database 0 only), all
three share the URL's database and are kept apart by key prefixes instead.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

# Redis's default `databases 16`: numbers 0 to 15.
MAX_DATABASE = 15
CACHE, BROKER, RESULTS = 0, 1, 2


def _database(url: str) -> int:
    parts = urlsplit(url)
    if parts.scheme == "unix":
        raw = dict(parse_qsl(parts.query)).get("db", "0")
    else:
        raw = parts.path.strip("/") or "0"
    if not raw.isdigit():
        raise ImproperlyConfigured(f"REDIS_URL must end in a database number, not {raw!r}")
    return int(raw)


def redis_database_url(url: str, offset: int) -> str:
    """`url` pointed at its own database number plus `offset`."""
    number = _database(url) + offset
    if number > MAX_DATABASE:
        raise ImproperlyConfigured(
            f"REDIS_URL's database leaves no room: the cache, broker and results use it and "
            f"the two after it (up to {MAX_DATABASE}); use a lower number or set "
            "LOOKOUT_REDIS_SEPARATE_DATABASES=false"
        )
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str(number)
        # urlunsplit would drop the empty host and its `//`.
        return f"unix://{parts.netloc}{parts.path}?{urlencode(query)}"
    return urlunsplit(parts._replace(path=f"/{number}"))
