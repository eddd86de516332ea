"""Locust users for `bench/soak.py`: viewers, wall screens and a few admins.

Not run on its own: `bench/soak.py` starts Lookout, writes the sessions file this reads
(`SOAK_SESSIONS`) and collects what it writes (`SOAK_OUT`) when locust quits.

- Viewers open the overview, the unit list or a unit page and then refresh its live
  region as htmx does (`HX-Request`, every 5 s) for a while, then move on.
- Wall screens exchange the wall link's token for the wall cookie once, then refresh
  the wall every `LOOKOUT_WALL_REFRESH_SECONDS`.
- Admins approve transfers that wait for approval and ask for fixity checks of AIPs,
  each through the confirmation form and its one-time key; every fourth form (the
  first included) is submitted twice (a double click), which must still make one
  upstream call.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import threading
from collections import Counter
from html.parser import HTMLParser
from typing import Any

from locust import HttpUser, between, constant, events, task

with open(os.environ["SOAK_SESSIONS"], encoding="utf-8") as _sessions:
    SESSIONS = json.load(_sessions)
OUT = os.environ["SOAK_OUT"]
VIEW_SECONDS = 5.0  # the htmx refresh of the live regions
WALL_SECONDS = float(SESSIONS["wall_refresh_seconds"])
HTMX = {"HX-Request": "true"}
UNIT_LINK = re.compile(r'href="/units/([0-9a-f-]{36})/"')
APPROVE_LINK = re.compile(r'href="/transfers/([0-9a-f-]{36})/approve/confirm/"')
PACKAGE_LINK = re.compile(r'href="/storage/packages/([0-9a-f-]{36})/"')

_lock = threading.Lock()
statuses: Counter[str] = Counter()  # "<page> <status>"
server_errors: list[dict[str, Any]] = []
submitted: list[dict[str, Any]] = []  # one per confirmed form
unit_uuids: list[str] = []
claimed: set[str] = set()  # targets an admin has acted on: each is acted on once
_admin_numbers = itertools.count()
_form_numbers = itertools.count()  # every fourth form, the first included, is sent twice


class _FormReader(HTMLParser):
    """The fields of the confirmation form (the one with an idempotency key)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []
        self._fields: dict[str, str] | None = None
        self._action = ""
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._fields, self._action = {}, a.get("action", "")
        elif self._fields is None:
            return
        elif tag == "input" and a.get("name") and a.get("type") != "submit":
            self._fields.setdefault(a["name"], a.get("value", ""))
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and self._select not in self._fields:
            self._fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._fields is not None:
            self.forms.append((self._action, self._fields))
            self._fields = None
        elif tag == "select":
            self._select = None


def confirmation_form(html: str) -> tuple[str, dict[str, str]] | None:
    reader = _FormReader()
    reader.feed(html)
    for action, fields in reader.forms:
        if "idempotency_key" in fields:
            return action, fields
    return None


def _count(page: str, response: Any) -> None:
    code = response.status_code
    with _lock:
        statuses[f"{page} {code}"] += 1
        if code >= 500:
            server_errors.append({"page": page, "status": code, "body": response.text[:500]})


def _get(user: HttpUser, path: str, page: str, *, htmx: bool = False) -> Any:
    headers = HTMX if htmx else None
    with user.client.get(
        path, name=page, headers=headers, catch_response=True, allow_redirects=False
    ) as response:
        _count(page, response)
        if response.status_code >= 300:
            # A redirect is the login page: the user's session did not hold, and a
            # login page is no measure of the page asked for.
            response.failure(f"HTTP {response.status_code}")
        else:
            response.success()
    return response


class Viewer(HttpUser):
    """An archivist with a page open: its live region refreshes every 5 s."""

    weight = 9
    wait_time = constant(VIEW_SECONDS)

    def on_start(self) -> None:
        self.client.cookies.set("sessionid", random.choice(SESSIONS["viewers"]))
        self._page, self._path, self._left = "", "", 0

    @task
    def look(self) -> None:
        if self._left <= 0:
            self._open_a_page()
            return
        _get(self, self._path, f"{self._page} (htmx refresh)", htmx=True)
        self._left -= 1

    def _open_a_page(self) -> None:
        with _lock:
            known = list(unit_uuids)
        choice = random.random()
        if choice < 0.35:
            self._page, self._path = "/", "/"
        elif choice < 0.65 or not known:
            self._page, self._path = "/units/", "/units/"
        else:
            self._page, self._path = "/units/[uuid]/", f"/units/{random.choice(known)}/"
        response = _get(self, self._path, self._page)
        if self._page == "/units/" and response.status_code == 200:
            found = UNIT_LINK.findall(response.text)
            with _lock:
                unit_uuids[:] = list(dict.fromkeys([*found, *unit_uuids]))[:500]
        # Stay on the page for 30 s to 2 min, refreshing as the browser would.
        self._left = random.randint(6, 24)


class WallScreen(HttpUser):
    """A wall screen: the link's token is exchanged once, then the wall refreshes."""

    weight = 1
    wait_time = constant(WALL_SECONDS)

    def on_start(self) -> None:
        # The exchange alone: its redirect to /wall/ is the next request, timed as the wall.
        with self.client.get(
            f"/wall/{SESSIONS['wall_token']}/",
            name="/wall/[token]/",
            catch_response=True,
            allow_redirects=False,
        ) as response:
            _count("/wall/[token]/", response)
            if response.status_code == 302 and response.headers.get("Location") == "/wall/":
                response.success()
            else:
                response.failure(f"HTTP {response.status_code}, not the redirect to /wall/")
        _get(self, "/wall/", "/wall/")

    @task
    def refresh(self) -> None:
        _get(self, "/wall/", "/wall/ (htmx refresh)", htmx=True)


class Admin(HttpUser):
    """An operator clearing the approval queue and asking for fixity checks."""

    fixed_count = int(SESSIONS.get("admins_count", 3))
    wait_time = between(5, 15)

    def on_start(self) -> None:
        # Each admin its own account.
        number = next(_admin_numbers) % len(SESSIONS["admins"])
        self.client.cookies.set("sessionid", SESSIONS["admins"][number])

    @task(2)
    def approve(self) -> None:
        page = _get(self, "/waiting/", "/waiting/")
        candidates = APPROVE_LINK.findall(page.text) if page.status_code == 200 else []
        self._act("transfer_approve", candidates, "/transfers/{}/approve/confirm/")

    @task(1)
    def fixity(self) -> None:
        page = _get(self, "/storage/packages/?package_type=AIP", "/storage/packages/")
        candidates = PACKAGE_LINK.findall(page.text) if page.status_code == 200 else []
        self._act("package_fixity_check", candidates, "/storage/packages/{}/fixity/")

    def _act(self, action: str, candidates: list[str], confirm: str) -> None:
        with _lock:
            fresh = [uuid for uuid in candidates if uuid not in claimed]
            if not fresh:
                return
            target = random.choice(fresh)
            claimed.add(target)
        page = _get(self, confirm.format(target), f"{action} confirm")
        form = confirmation_form(page.text) if page.status_code == 200 else None
        if form is None:
            return  # no longer offered: nothing was sent
        url, fields = form
        fields["csrfmiddlewaretoken"] = self.client.cookies.get("csrftoken", "") or fields.get(
            "csrfmiddlewaretoken", ""
        )
        posts = 2 if next(_form_numbers) % 4 == 0 else 1
        answers = []
        for _ in range(posts):
            with self.client.post(
                url or confirm.format(target).replace("confirm/", ""),
                data=fields,
                name=f"{action} submit",
                headers={"Referer": self.host + confirm.format(target)},
                allow_redirects=False,
                catch_response=True,
            ) as response:
                _count(f"{action} submit", response)
                answers.append(response.status_code)
                ok = response.status_code < 400
                response.success() if ok else response.failure(f"HTTP {response.status_code}")
        with _lock:
            submitted.append(
                {
                    "action": action,
                    "target": target,
                    "key": fields["idempotency_key"],
                    "posts": posts,
                    "answers": answers,
                }
            )


@events.quitting.add_listener
def _write_out(environment: Any, **kwargs: Any) -> None:
    with _lock:
        payload = {
            "statuses": dict(statuses),
            "server_errors": server_errors[:50],
            "server_error_count": len(server_errors),
            "submitted": submitted,
        }
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump(payload, out)
