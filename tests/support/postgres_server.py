"""A private, throw-away PostgreSQL server for the PostgreSQL pass of the tests.

    with postgres_server() as database_url:
        ...  # postgres://lookout@127.0.0.1:<port>/lookout

initdb into a temporary folder, start on a free loopback port (unix socket in that
folder, durability off: the data is thrown away), create the `lookout` database, and
stop and remove it all at the end. The machine's own PostgreSQL, if any, is never used.
PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system
user (made by Debian's package; created here if missing) and the folder belongs to it.

As a command it runs another command against such a server, with DATABASE_URL set and
LOOKOUT_TEST_DATABASE=postgresql (tests/test_database_backend.py checks it), and stops
the server however that command ends:

    python -m tests.support.postgres_server python -m pytest -m "not browser"
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.redis_server import free_port

SERVER_USER = "postgres"  # who runs the server when the tests run as root
DATABASE = "lookout"
SUPERUSER = "lookout"
PACKAGE_HINT = (
    "the PostgreSQL server is not installed: run `make test` (it installs it) "
    "or `apt-get install postgresql`"
)


def server_binaries() -> Path:
    """The folder holding initdb, pg_ctl and postgres: on PATH, else Debian's newest."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb") and shutil.which("postgres"):
        return Path(on_path).resolve().parent
    debian = sorted(
        (path for path in Path("/usr/lib/postgresql").glob("*/bin") if path.name == "bin"),
        key=lambda path: [int(n) for n in re.findall(r"\d+", path.parent.name)] or [0],
    )
    for folder in reversed(debian):
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    raise RuntimeError(PACKAGE_HINT)


def _as_server_user() -> tuple[list[str], int | None, int | None]:
    """The command prefix that runs a command as the server's user, and its uid/gid.

    Not root: the current user, no prefix. Root: the `postgres` system user.
    """
    if os.geteuid() != 0:
        return [], None, None
    try:
        account = pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
            + [SERVER_USER],
            check=True,
        )
        account = pwd.getpwnam(SERVER_USER)
    runuser = shutil.which("runuser")
    if runuser is None:
        raise RuntimeError(
            "running as root needs `runuser` (util-linux) to start PostgreSQL as "
            f"the {SERVER_USER!r} user; or run the tests as an ordinary user"
        )
    return [runuser, "-u", SERVER_USER, "--"], account.pw_uid, account.pw_gid


def _run(prefix: list[str], command: list[str], cwd: Path) -> None:
    result = subprocess.run(
        prefix + command, cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{Path(command[0]).name} failed ({result.returncode}):\n"
            f"{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )


@contextmanager
def postgres_server() -> Iterator[str]:
    binaries = server_binaries()
    prefix, uid, gid = _as_server_user()
    workdir = Path(tempfile.mkdtemp(prefix="lookout-postgres-"))
    if uid is not None:
        os.chown(workdir, uid, gid)
    data = workdir / "data"
    log = workdir / "server.log"
    pg_ctl = str(binaries / "pg_ctl")
    started = False
    try:
        _run(
            prefix,
            [
                str(binaries / "initdb"),
                "--pgdata",
                str(data),
                "--username",
                SUPERUSER,
                "--auth",
                "trust",
                "--encoding",
                "UTF8",
                # Code-point order, as SQLite's default collation, and no `locales` needed.
                "--locale",
                "C.UTF-8",
                "--no-sync",
            ],
            cwd=workdir,
        )
        port = free_port()
        options = [
            f"-p {port}",
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={shlex.quote(str(workdir))}",
            "-c fsync=off",
            "-c synchronous_commit=off",
            "-c full_page_writes=off",
        ]
        # pg_ctl -w waits until the server accepts connections (or says why it did not).
        try:
            _run(
                prefix,
                [pg_ctl, "--pgdata", str(data), "--log", str(log), "--wait", "--timeout", "60"]
                + ["--options", " ".join(options), "start"],
                cwd=workdir,
            )
        except RuntimeError as exc:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {exc}\n{tail}") from None
        started = True
        import psycopg  # a runtime dependency of Lookout, so in every virtualenv

        admin = f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres"
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{DATABASE}"')
        yield f"postgres://{SUPERUSER}@127.0.0.1:{port}/{DATABASE}"
    finally:
        if started:
            stop = prefix + [pg_ctl, "--pgdata", str(data), "--mode", "fast", "--wait", "stop"]
            try:
                subprocess.run(stop, cwd=workdir, capture_output=True, timeout=60, check=True)
            except (subprocess.SubprocessError, OSError):
                subprocess.run(
                    prefix + [pg_ctl, "--pgdata", str(data), "--mode", "immediate", "stop"],
                    cwd=workdir,
                    capture_output=True,
                    timeout=60,
                    check=False,
                )
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv:
        print(f"usage: {sys.argv[0]} COMMAND [ARG...]", file=sys.stderr)
        return 2
    # `kill` (SIGTERM) unwinds like Ctrl-C does, so the server is stopped either way.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started_at = time.monotonic()
    try:
        with postgres_server() as url:
            print(f"Private PostgreSQL for the tests: {url}", flush=True)
            env = {**os.environ, "DATABASE_URL": url, "LOOKOUT_TEST_DATABASE": "postgresql"}
            code = subprocess.run(argv, env=env, check=False).returncode
    except RuntimeError as exc:
        print(f"PostgreSQL pass: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"Private PostgreSQL stopped after {time.monotonic() - started_at:.0f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
