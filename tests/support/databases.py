"""A fresh database for a subprocess (manage.py migrate, poll, a Celery worker).

The tests' own database lives inside a transaction the subprocess cannot see, so such a
test gives the subprocess a database of its own: a SQLite file on the SQLite pass, a new
database on the same private server on the PostgreSQL pass (DATABASE_URL points there).
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgres://", "postgresql://", "pgsql://")


def _is_postgres(url: str) -> bool:
    return url.startswith(POSTGRES_SCHEMES)


@contextmanager
def scratch_database(folder: Path, name: str) -> Iterator[str]:
    """Yield the DATABASE_URL of an empty database; a PostgreSQL one is dropped after."""
    base = os.environ.get("DATABASE_URL", "")
    if not _is_postgres(base):
        yield f"sqlite:///{folder / f'{name}.sqlite3'}"
        return
    import psycopg
    from psycopg import sql

    database = f"{name}_{secrets.token_hex(4)}"
    with psycopg.connect(_libpq(base), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        yield urlunsplit(urlsplit(base)._replace(path=f"/{database}"))
    finally:
        with psycopg.connect(_libpq(base), autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
            )


def scalar(url: str, query: str) -> Any:
    """The first column of the first row of `query` run on the database at `url`."""
    return rows(url, query)[0][0]


def rows(url: str, query: str) -> list[tuple[Any, ...]]:
    """Every row of `query` run on the database at `url`."""
    if _is_postgres(url):
        import psycopg

        with psycopg.connect(_libpq(url)) as db:
            return list(db.execute(query).fetchall())
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db:
        return list(db.execute(query).fetchall())


def _libpq(url: str) -> str:
    """libpq accepts postgres:// and postgresql://, not dj-database-url's other aliases."""
    return "postgresql://" + url.split("://", 1)[1]
