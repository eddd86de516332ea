"""A wall screen as a real one uses Lookout over HTTP, for tests that run a real server:
make a link with `manage.py wall_link create`, wait for the server, open the link (its
token is swapped for a cookie) and refresh the page with the cookie."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def wall_token_create(env: dict[str, str], name: str = "Operations room") -> str:
    """A new link's token, from the address the command prints once."""
    created = subprocess.run(
        [sys.executable, "manage.py", "wall_link", "create", name],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return created.stdout.strip().rstrip("/").rsplit("/", 1)[-1]


def wait_until_answering(
    base: str, *, seconds: float, server: subprocess.Popen[bytes] | None = None
) -> None:
    """Until `base` answers /healthz (any status); fails if `server` stops first."""
    deadline = time.monotonic() + seconds
    while True:
        assert server is None or server.poll() is None, "the server stopped before answering"
        try:
            urllib.request.urlopen(f"{base}/healthz", timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers (a 503 before any poll is still an answer)
        except OSError:
            assert time.monotonic() < deadline, "the server did not answer in time"
            time.sleep(0.2)


def wall_open(base: str, token: str, *, refreshes: int = 1) -> None:
    """Open the link as a screen does: a 302 that sets the cookie, then the refreshes."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(f"{base}/wall/{token}/", timeout=10)
    except urllib.error.HTTPError as answer:
        assert answer.code == 302
        cookie = answer.headers["Set-Cookie"].split(";", 1)[0]
    else:
        raise AssertionError("the wall link did not redirect")
    for _ in range(refreshes):
        page = opener.open(
            urllib.request.Request(f"{base}/wall/", headers={"Cookie": cookie}), timeout=10
        )
        assert page.status == 200
