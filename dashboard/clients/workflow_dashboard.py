"""Client for the workflow service's OWN dashboard (its web UI), with a service account.

The public API lists no running or failed unit; the dashboard's status lists give every
unit that is not hidden, each job's creation time and each pending decision's choices.
They need a signed-in session, not an API key. How the real service answers is written
down in docs/service-account.md; what this module absorbs, and nowhere else:

- sign-in is the login form's: GET it for the `csrftoken` cookie and the
  `csrfmiddlewaretoken` field, POST them with the account; success is a 302 and a
  `sessionid` cookie, a refusal re-renders the form (200) -> `SignInRefused`;
- an expired session answers any route with a 302 to the login page: sign in again and
  send the request once more (once per call: a second redirect is a refusal, not a loop);
- the status lists are `{"objects": [...], "mcp": true}`, multi-megabyte at a thousand
  units: stream-parsed one unit at a time (bounded memory); a malformed unit or job is
  logged and skipped;
- `mcp: false` (`objects` then an empty OBJECT) means the job server is down -> `JobServerDown`;
- a unit's float `timestamp` counts its fraction of a second twice: unused; each job's
  string `timestamp` is its exact creation time (UTC) and is what `created_at` holds;
- POST /mcp/execute/ answers 200 "None" whether or not the job server acted: the only
  way to know is to read the list again, so `answer_decision` returns nothing.

The session cookie lives only in a `SessionStore` (the Django cache, per pipeline, from
the factory); the password only in this object, never in a message or a log line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol
from urllib.parse import urlsplit

import requests

from dashboard.clients.base import (
    USER_AGENT,
    MalformedPayload,
    UpstreamAuthError,
    UpstreamConfigError,
    UpstreamError,
    UpstreamResponseError,
    UpstreamUnavailable,
    body_text,
    normalise_uuid,
    read_str,
    require_mapping,
    require_uuid,
)
from dashboard.clients.json_stream import MalformedJSON, iter_array_items
from dashboard.lib.pipelines import PipelineConfig
from dashboard.lib.redaction import redact

logger = logging.getLogger(__name__)

SERVICE = "workflow dashboard"
LOGIN_PATH = "/administration/accounts/login/"
# Connect fast (an unreachable host says so at once); read long: the lists are megabytes,
# and while the job server is down the service holds them about 30 s.
DEFAULT_LIST_TIMEOUT = (3.05, 40.0)
# Status counts and decisions: the service does not answer them at all during an outage.
DEFAULT_CALL_TIMEOUT = (3.05, 35.0)
CHUNK_BYTES = 64 * 1024
# The groups a failed unit's clean-up jobs run in: the failure is the job before them.
CLEANUP_GROUPS = frozenset({"Failed transfer", "Failed SIP"})
_CSRF_FIELD = re.compile(
    r"""<input[^>]*name=["']csrfmiddlewaretoken["'][^>]*>""", re.IGNORECASE | re.DOTALL
)
_VALUE = re.compile(r"""value=["']([^"']+)["']""", re.IGNORECASE)


# --- errors


class DashboardError(UpstreamError):
    """Any failure talking to the workflow service's dashboard."""


class DashboardUnavailable(DashboardError, UpstreamUnavailable):
    """Not reached: connection refused, timeout, 502-504."""


class JobServerDown(DashboardUnavailable):
    """The dashboard answered, but its job server did not (`mcp: false`)."""


class SignInRefused(DashboardError, UpstreamAuthError):
    """The service account was refused, or its fresh session was not accepted."""


class DashboardResponseError(DashboardError, UpstreamResponseError):
    """Any other unexpected answer: a status, a redirect elsewhere, a body that is not JSON."""


class DashboardConfigError(DashboardError, UpstreamConfigError):
    """No usable URL or account."""


# --- values


class UnitListKind(StrEnum):
    TRANSFER = "transfer"
    INGEST = "ingest"


class JobStep(StrEnum):
    AWAITING = "awaiting"
    COMPLETED = "completed"
    EXECUTING = "executing"
    FAILED = "failed"


_STEPS = {1: JobStep.AWAITING, 2: JobStep.COMPLETED, 3: JobStep.EXECUTING, 4: JobStep.FAILED}


def _raw_step(raw: Mapping[str, Any]) -> Any:
    step = raw.get("currentstep")
    if isinstance(step, str) and step.strip().isdigit():
        return int(step)
    return step


def _skipped_steps(steps: frozenset[JobStep] | None) -> set[int]:
    """The `currentstep` numbers of the known steps not in `steps`; a job with an
    unknown or missing step is still read, so it is still logged as malformed."""
    if steps is None:
        return set()
    return {number for number, step in _STEPS.items() if step not in steps}


def _created_at(value: Any) -> datetime:
    """A job's string time stamp (`"1795807416.1239790000"`, seconds since the epoch, UTC)
    as an aware datetime, exact to the microsecond (no float rounding)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = repr(value)
    if not isinstance(value, str):
        raise MalformedPayload(f"job timestamp is not a number string: {value!r}")
    seconds, _, fraction = value.strip().partition(".")
    if not seconds.isdigit() or (fraction and not fraction.isdigit()):
        raise MalformedPayload(f"job timestamp is not a number: {value!r}")
    try:
        moment = datetime.fromtimestamp(int(seconds), UTC)
    except (OverflowError, OSError, ValueError):
        raise MalformedPayload(f"job timestamp is out of range: {value!r}") from None
    return moment.replace(microsecond=int((fraction + "000000")[:6]))


def _choices(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    mapping = require_mapping(value, "choices")
    return {str(key): str(label) for key, label in mapping.items()}


@dataclass(frozen=True)
class DashboardJob:
    uuid: str
    link_id: str
    # The job's name (`type`), e.g. "Approve standard transfer".
    name: str
    # Its microservice group (`microservicegroup`), e.g. "Approve transfer".
    group: str
    step: JobStep
    # When the job was created (UTC): when a decision's wait began, when a failure happened.
    created_at: datetime
    # Only on a decision the job server holds: `{choice key: label}`.
    choices: dict[str, str] = field(default_factory=dict, hash=False)

    @classmethod
    def from_api(cls, data: Any) -> DashboardJob:
        data = require_mapping(data, "job")
        step = data.get("currentstep")
        if isinstance(step, str) and step.strip().isdigit():
            step = int(step)
        if step not in _STEPS:
            raise MalformedPayload(f"unknown job step {step!r}")
        return cls(
            uuid=require_uuid(data, "uuid"),
            link_id=normalise_uuid(data.get("link_id")) or "",
            name=read_str(data, "type"),
            group=read_str(data, "microservicegroup"),
            step=_STEPS[step],
            created_at=_created_at(data.get("timestamp")),
            choices=_choices(data.get("choices")),
        )


@dataclass(frozen=True)
class DashboardUnit:
    uuid: str
    kind: UnitListKind
    directory: str
    # True while processing, including while waiting at a decision.
    active: bool
    # Newest first, as the service lists them.
    jobs: tuple[DashboardJob, ...]
    # A digest of how far the unit is (its job count, newest job and the kept jobs with
    # their steps): it changes whenever the unit moves, so a reader can tell a unit that
    # did not. Compare digests read with the same `steps`.
    progress: str = ""

    @property
    def failed_job(self) -> DashboardJob | None:
        """The job that failed, outside the clean-up groups that run after a failure."""
        failed = [job for job in self.jobs if job.step is JobStep.FAILED]
        real = [job for job in failed if job.group not in CLEANUP_GROUPS]
        found = real or failed
        return found[0] if found else None

    @property
    def awaiting_jobs(self) -> tuple[DashboardJob, ...]:
        """Jobs waiting for a decision, oldest first (the order they are asked in)."""
        return tuple(reversed([job for job in self.jobs if job.step is JobStep.AWAITING]))

    @property
    def latest_job(self) -> DashboardJob | None:
        return self.jobs[0] if self.jobs else None

    @classmethod
    def from_api(
        cls, data: Any, *, kind: UnitListKind, steps: frozenset[JobStep] | None = None
    ) -> DashboardUnit:
        """`steps`: keep only the jobs at these steps (discovery needs the awaiting and
        failed ones, a few of the ~45 a unit lists); None keeps every job."""
        data = require_mapping(data, "unit")
        raw_jobs = data.get("jobs") or []
        if not isinstance(raw_jobs, list):
            raise MalformedPayload("'jobs' is not a list")
        uuid = require_uuid(data, "uuid")
        skipped = _skipped_steps(steps)
        jobs = []
        for index, raw in enumerate(raw_jobs):
            if skipped and isinstance(raw, dict) and _raw_step(raw) in skipped:
                continue
            try:
                jobs.append(DashboardJob.from_api(raw))
            except MalformedPayload as exc:
                logger.warning(
                    "%s: skipped malformed job %d of unit %s: %s", SERVICE, index, uuid, exc
                )
        active = data.get("active")
        return cls(
            uuid=uuid,
            kind=kind,
            directory=read_str(data, "directory"),
            active=active is True,
            jobs=tuple(jobs),
            progress=_progress(raw_jobs, active is True, jobs),
        )


def _progress(raw_jobs: list[Any], active: bool, kept: list[DashboardJob]) -> str:
    newest = raw_jobs[0] if raw_jobs and isinstance(raw_jobs[0], dict) else {}
    steps = ",".join(f"{job.uuid}:{job.step.value}" for job in kept)
    text = f"{active}|{len(raw_jobs)}|{newest.get('uuid')}|{newest.get('currentstep')}|{steps}"
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class DecisionCounts:
    """Decisions waiting, counting only those the job server holds (GET /status/)."""

    transfer: int
    sip: int
    dip: int

    @classmethod
    def from_api(cls, data: Any) -> DecisionCounts:
        data = require_mapping(data, "status counts")
        values = {}
        for key in ("transfer", "sip", "dip"):
            value = data.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int):
                raise MalformedPayload(f"{key!r} is not a count")
            values[key] = value
        return cls(**values)


# --- the session's home


@dataclass(frozen=True)
class SessionCookies:
    sessionid: str
    csrftoken: str

    def __repr__(self) -> str:
        return "SessionCookies([redacted])"


class SessionStore(Protocol):
    def load(self) -> SessionCookies | None: ...
    def save(self, cookies: SessionCookies) -> None: ...
    def clear(self) -> None: ...


class MemorySessionStore:
    """For one process (tests, a shell); the factory's store is the shared cache."""

    def __init__(self) -> None:
        self.cookies: SessionCookies | None = None

    def load(self) -> SessionCookies | None:
        return self.cookies

    def save(self, cookies: SessionCookies) -> None:
        self.cookies = cookies

    def clear(self) -> None:
        self.cookies = None


class CacheSessionStore:
    """The session in the Django cache, keyed per pipeline, so every worker shares one
    sign-in. Sessions outlive a day rarely; the service's own expiry is handled by the
    redirect to its login page."""

    TTL = 12 * 3600

    def __init__(self, slug: str) -> None:
        self.key = f"dashboard:workflow-dashboard-session:{slug}"

    def load(self) -> SessionCookies | None:
        from django.core.cache import cache

        value = cache.get(self.key)
        if isinstance(value, dict) and value.get("sessionid"):
            return SessionCookies(str(value["sessionid"]), str(value.get("csrftoken") or ""))
        return None

    def save(self, cookies: SessionCookies) -> None:
        from django.core.cache import cache

        cache.set(
            self.key, {"sessionid": cookies.sessionid, "csrftoken": cookies.csrftoken}, self.TTL
        )

    def clear(self) -> None:
        from django.core.cache import cache

        cache.delete(self.key)


# --- client


def _to_login(response: requests.Response) -> bool:
    if not 300 <= response.status_code < 400:
        return False
    return LOGIN_PATH in urlsplit(response.headers.get("Location") or "").path


class WorkflowDashboardClient:
    """One pipeline's dashboard, signed in with its service account."""

    def __init__(
        self,
        base_url: str,
        user: str,
        password: str,
        *,
        store: SessionStore | None = None,
        list_timeout: Sequence[float] = DEFAULT_LIST_TIMEOUT,
        call_timeout: Sequence[float] = DEFAULT_CALL_TIMEOUT,
        session: requests.Session | None = None,
    ) -> None:
        parts = urlsplit(base_url or "")
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise DashboardConfigError(
                f"{SERVICE} URL must be an http(s) URL, got {base_url!r}", service=SERVICE
            )
        if not user or not password:
            raise DashboardConfigError(
                f"{SERVICE} account needs a user and a password", service=SERVICE
            )
        self.base_url = base_url.rstrip("/")
        self.user = user
        self._password = password
        self.store: SessionStore = store if store is not None else MemorySessionStore()
        self.list_timeout = (float(list_timeout[0]), float(list_timeout[1]))
        self.call_timeout = (float(call_timeout[0]), float(call_timeout[1]))
        if session is None:
            # requests' own adapter: it reads the cookies the sign-in depends on (the
            # API clients' adapter leaves them out).
            session = requests.Session()
            session.trust_env = False
        self.session = session

    def __repr__(self) -> str:
        return f"WorkflowDashboardClient({self.base_url!r}, user={self.user!r})"

    # --- public calls

    def iter_status_list(
        self, kind: UnitListKind | str, *, steps: frozenset[JobStep] | None = None
    ) -> Iterator[DashboardUnit]:
        """Every unit of `GET /<kind>/status/`, one at a time as the answer streams in,
        with its jobs at `steps` (all when None).

        Raises `JobServerDown` after the last unit when the service says `mcp: false`
        (it then lists none). A malformed unit is logged and skipped.
        """
        kind = UnitListKind(kind)
        path = f"/{kind.value}/status/"
        response = self._send("GET", path, timeout=self.list_timeout, stream=True)
        try:
            yield from self._stream_units(response, kind, path, steps)
        finally:
            response.close()

    def status_list(self, kind: UnitListKind | str) -> tuple[DashboardUnit, ...]:
        """The whole list at once (small pipelines, tests); see `iter_status_list`."""
        return tuple(self.iter_status_list(kind))

    def decision_counts(self) -> DecisionCounts:
        response = self._send("GET", "/status/", timeout=self.call_timeout)
        payload = self._json(response, "/status/")
        try:
            return DecisionCounts.from_api(payload)
        except MalformedPayload as exc:
            raise self._malformed("/status/", response, str(exc)) from None

    def answer_decision(self, job_uuid: str, choice: str) -> None:
        """Send a decision as the dashboard's menus do. The service answers 200 "None"
        whether it acted or not (a decided job, a wrong choice): read the list again to
        know. Sent once, never retried: it is not idempotent."""
        job = normalise_uuid(job_uuid)
        if job is None:
            raise ValueError(f"not a job UUID: {job_uuid!r}")
        self._send(
            "POST",
            "/mcp/execute/",
            timeout=self.call_timeout,
            data={"uuid": job, "choice": str(choice)},
        )

    def sign_in(self) -> SessionCookies:
        """Sign in as the login form does; the session is saved in the store."""
        url = self._url(LOGIN_PATH)
        self.session.cookies.clear()
        form = self._raw("GET", url, timeout=self.call_timeout)
        if form.status_code != 200:
            raise self._unexpected("GET", LOGIN_PATH, form)
        csrf = form.cookies.get("csrftoken") or self.session.cookies.get("csrftoken") or ""
        field_value = self._form_token(form.text) or csrf
        if not csrf:
            raise self._malformed(LOGIN_PATH, form, "the login form set no csrftoken cookie")
        answer = self._raw(
            "POST",
            url,
            timeout=self.call_timeout,
            data={
                "username": self.user,
                "password": self._password,
                "csrfmiddlewaretoken": field_value,
            },
            headers={"Referer": url},
            cookies={"csrftoken": csrf},
        )
        session_id = answer.cookies.get("sessionid")
        if not (300 <= answer.status_code < 400 and session_id) or _to_login(answer):
            answer.close()
            if answer.status_code >= 500:
                raise self._unexpected("POST", LOGIN_PATH, answer)
            raise SignInRefused(
                f"{SERVICE} refused the service account {self.user!r} "
                f"(sign-in answered {answer.status_code})",
                service=SERVICE,
                url=self._url(LOGIN_PATH),
                status=answer.status_code,
            )
        cookies = SessionCookies(
            sessionid=session_id, csrftoken=answer.cookies.get("csrftoken") or csrf
        )
        self.store.save(cookies)
        logger.info("%s: signed in as %s", SERVICE, self.user)
        return cookies

    # --- sending

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _redact(self, text: str) -> str:
        return redact(text, (self._password,))

    def _raw(
        self, method: str, url: str, *, timeout: tuple[float, float], **kwargs: Any
    ) -> requests.Response:
        headers = {"User-Agent": USER_AGENT, **kwargs.pop("headers", {})}
        started = time.monotonic()
        try:
            response = self.session.request(
                method, url, timeout=timeout, allow_redirects=False, headers=headers, **kwargs
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            reason = "timed out" if isinstance(exc, requests.Timeout) else "could not connect"
            raise DashboardUnavailable(
                f"{SERVICE} {reason} ({method} {url}): {self._redact(str(exc))}",
                service=SERVICE,
                url=url,
            ) from None
        except requests.RequestException as exc:
            raise DashboardResponseError(
                f"{SERVICE} request failed ({method} {url}): {self._redact(str(exc))}",
                service=SERVICE,
                url=url,
            ) from None
        logger.debug(
            "%s %s -> %s in %.0f ms",
            method,
            url,
            response.status_code,
            (time.monotonic() - started) * 1000,
        )
        return response

    def _send(
        self,
        method: str,
        path: str,
        *,
        timeout: tuple[float, float],
        data: Mapping[str, str] | None = None,
        stream: bool = False,
    ) -> requests.Response:
        """Send with the stored session, signing in first when there is none, and again
        (once) when the service sends the request to its login page."""
        cookies = self.store.load()
        signed_in_now = False
        if cookies is None:
            cookies, signed_in_now = self.sign_in(), True
        for attempt in (1, 2):
            headers = {"Accept": "application/json"}
            if method == "POST":
                # Django's CSRF check: the cookie's value in the header, and (on https)
                # a Referer of the same origin.
                headers["X-CSRFToken"] = cookies.csrftoken
                headers["Referer"] = self._url(path)
            self.session.cookies.clear()
            response = self._raw(
                method,
                self._url(path),
                timeout=timeout,
                data=data,
                headers=headers,
                cookies={"sessionid": cookies.sessionid, "csrftoken": cookies.csrftoken},
                stream=stream,
            )
            if not _to_login(response):
                self._check(method, path, response)
                return response
            response.close()
            if signed_in_now or attempt == 2:
                self.store.clear()
                raise SignInRefused(
                    f"{SERVICE} sent {method} {path} to its login page right after a sign-in",
                    service=SERVICE,
                    url=self._url(path),
                    status=response.status_code,
                )
            logger.info("%s: session expired, signing in again", SERVICE)
            self.store.clear()
            cookies, signed_in_now = self.sign_in(), True
        raise AssertionError("unreachable: the second try returns or raises")

    def _check(self, method: str, path: str, response: requests.Response) -> None:
        status = response.status_code
        if 200 <= status < 300:
            return
        response_error = self._unexpected(method, path, response)
        response.close()
        raise response_error

    def _unexpected(self, method: str, path: str, response: requests.Response) -> DashboardError:
        status = response.status_code
        kind: type[DashboardError] = (
            DashboardUnavailable if status in {502, 503, 504} else DashboardResponseError
        )
        summary = f"{SERVICE} answered {method} {path} with {status}"
        if 300 <= status < 400:
            location = self._redact(response.headers.get("Location") or "?")
            summary += f": redirect to {location} not followed"
        return kind(
            summary,
            service=SERVICE,
            url=self._url(path),
            status=status,
            body=self._redact(body_text(response)),
        )

    def _malformed(self, path: str, response: requests.Response, reason: str) -> DashboardError:
        return DashboardResponseError(
            f"{SERVICE} sent a malformed answer to {path}: {self._redact(reason)}",
            service=SERVICE,
            url=self._url(path),
            status=response.status_code,
            unreadable=True,
        )

    def _json(self, response: requests.Response, path: str) -> Any:
        try:
            return json.loads(response.content)
        except (ValueError, requests.RequestException) as exc:
            raise self._malformed(path, response, f"the body is not JSON ({exc})") from None

    @staticmethod
    def _form_token(html: str) -> str:
        match = _CSRF_FIELD.search(html or "")
        if match is None:
            return ""
        value = _VALUE.search(match.group(0))
        return value.group(1) if value else ""

    # --- streaming

    def _stream_units(
        self,
        response: requests.Response,
        kind: UnitListKind,
        path: str,
        steps: frozenset[JobStep] | None = None,
    ) -> Iterator[DashboardUnit]:
        # One C decode per unit as its bytes arrive (`clients.json_stream`): the memory
        # held is a unit and a chunk, whatever the size of the list.
        others: dict[str, Any] = {}
        try:
            units = iter_array_items(response.iter_content(CHUNK_BYTES), "objects", others=others)
            for index, raw in enumerate(units):
                yield from self._unit_or_skip(raw, kind, index, path, steps)
        except MalformedJSON as exc:
            raise self._malformed(path, response, f"the list is not valid JSON ({exc})") from None
        except (requests.RequestException, OSError) as exc:
            raise DashboardUnavailable(
                f"{SERVICE} broke off the answer to GET {path}: {self._redact(str(exc))}",
                service=SERVICE,
                url=self._url(path),
            ) from None
        flag = others.get("mcp")
        if not isinstance(flag, bool):
            raise self._malformed(path, response, "the list has no 'mcp' flag")
        if flag is False:
            raise JobServerDown(
                f"{SERVICE}: the job server is not answering (GET {path} said mcp: false)",
                service=SERVICE,
                url=self._url(path),
                status=response.status_code,
            )

    @staticmethod
    def _unit_or_skip(
        raw: Any, kind: UnitListKind, index: int, path: str, steps: frozenset[JobStep] | None
    ) -> Iterator[DashboardUnit]:
        try:
            yield DashboardUnit.from_api(raw, kind=kind, steps=steps)
        except MalformedPayload as exc:
            logger.warning("%s: skipped malformed unit %d of %s: %s", SERVICE, index, path, exc)


# --- factory


def get_workflow_dashboard_client(pipeline: PipelineConfig) -> WorkflowDashboardClient | None:
    """The dashboard client of a pipeline (`PipelineConfig`), or None when it has no
    service account (API-only mode)."""
    from django.conf import settings

    if not (pipeline.dashboard_user and pipeline.dashboard_password):
        return None
    connect = float(getattr(settings, "LOOKOUT_HTTP_TIMEOUT", DEFAULT_LIST_TIMEOUT)[0])
    read = float(getattr(settings, "LOOKOUT_DASHBOARD_READ_TIMEOUT", DEFAULT_LIST_TIMEOUT[1]))
    return WorkflowDashboardClient(
        pipeline.url,
        pipeline.dashboard_user,
        pipeline.dashboard_password,
        store=CacheSessionStore(pipeline.slug),
        list_timeout=(connect, read),
        call_timeout=(connect, min(read, DEFAULT_CALL_TIMEOUT[1])),
    )
