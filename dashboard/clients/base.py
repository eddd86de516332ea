"""Plumbing shared by the workflow and storage clients.

What lives here and nowhere else:
- one `requests.Session` per client, the `Authorization: ApiKey <user>:<key>` header and
  a `User-Agent: Lookout/<version>` on every call;
- explicit `(connect, read)` timeouts on every call, and bounded retries with exponential
  backoff for GETs only (connection errors, timeouts, 502/503/504);
- redirects are never followed: a 3xx could point at another host and lose the header;
- the error vocabulary both services share (`UpstreamError` and its kinds);
- redaction of `api_key` from every URL and message that is logged or put in an exception;
- `Content-Type` checks before any JSON decoding (the header may be missing);
- the storage service's `{meta, objects}` paging loop;
- small lenient readers the `from_api()` parsers use (numbers as strings, URIs to UUIDs).

Nothing here imports Django.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, Generic, TypeVar
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import requests
import requests.adapters
import requests.auth
import requests.utils

from dashboard.clients.transport import KeptPoolAdapter
from dashboard.lib.redaction import redact

logger = logging.getLogger(__name__)

LOOKOUT_VERSION = "0.1.0"
USER_AGENT = f"Lookout/{LOOKOUT_VERSION}"

Timeout = tuple[float, float]
DEFAULT_TIMEOUT: Timeout = (3.05, 10.0)
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.2
POOL_SIZE = 64
# A path `_send_plain` may send as it is: no query, nothing to encode.
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9/_.-]*")
# Gateway answers that usually mean "try again shortly".
RETRYABLE_STATUSES = frozenset({502, 503, 504})
# Enough of an error body to diagnose; error pages can be kilobytes of HTML.
BODY_LIMIT = 2000

T = TypeVar("T")
Params = Mapping[str, Any] | Sequence[tuple[str, Any]] | None

# --- redaction


# --- errors


class UpstreamError(Exception):
    """A call to an upstream service failed.

    `url` is redacted and `body` is truncated and redacted, so both are safe to log and
    to store. `upstream_message` is the service's own explanation when it gave one.
    """

    def __init__(
        self,
        message: str,
        *,
        service: str = "upstream",
        url: str | None = None,
        status: int | None = None,
        body: str = "",
        upstream_message: str | None = None,
        unreadable: bool = False,
    ) -> None:
        # Redact again here so that an error built anywhere cannot carry a key.
        message = redact(message)
        super().__init__(message)
        self.message = message
        self.service = service
        self.url = redact(url) if url else url
        self.status = status
        # Redact before cutting, so a key across the cut cannot leave a readable half.
        self.body = redact(body)[:BODY_LIMIT]
        self.upstream_message = redact(upstream_message) if upstream_message else None
        # The answer did not parse (set by the client's malformed-answer check only).
        self.unreadable = unreadable

    @property
    def accepted(self) -> bool:
        """The service answered 2xx, so it took the request (and may have acted), but the
        answer could not be read. Not a refusal: a 2xx saying `error: true` is one."""
        return self.unreadable and self.status is not None and 200 <= self.status < 300


class UpstreamUnavailable(UpstreamError):
    """The service could not be reached: connection refused, DNS failure, timeout, 502-504."""


class UpstreamAuthError(UpstreamError):
    """The service refused our credentials."""


class UpstreamNotFound(UpstreamError):
    """The service says the thing asked for does not exist."""


class UpstreamResponseError(UpstreamError):
    """Any other non-2xx answer, a redirect, or a body that does not parse."""


class UpstreamConfigError(UpstreamError):
    """The client cannot be built: missing or unusable URL or credentials."""


@dataclass(frozen=True)
class ErrorFamily:
    """The service-specific subclass to raise for each kind of failure."""

    unavailable: type[UpstreamUnavailable]
    auth: type[UpstreamAuthError]
    not_found: type[UpstreamNotFound]
    response: type[UpstreamResponseError]
    config: type[UpstreamConfigError]


# --- payload readers


class MalformedPayload(ValueError):
    """A payload does not have the shape the spec promises."""


def require_mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedPayload(f"{what} is not an object")
    return value


def require_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedPayload(f"{what} is not a list")
    return value


def read_str(data: Mapping[str, Any], key: str, default: str = "") -> str:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise MalformedPayload(f"{key!r} is not a string")
    return value


def read_optional_str(data: Mapping[str, Any], key: str) -> str | None:
    return read_str(data, key) or None


def to_int(value: Any, what: str) -> int | None:
    """An int, or a numeric string (old tastypie serialises big integers as strings)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise MalformedPayload(f"{what} is a boolean, not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise MalformedPayload(f"{what} is not a whole number: {value!r}")


def read_int(data: Mapping[str, Any], key: str) -> int | None:
    return to_int(data.get(key), repr(key))


def read_bool(data: Mapping[str, Any], key: str, default: bool = False) -> bool:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in {"true", "false"}:
        return value.lower() == "true"
    raise MalformedPayload(f"{key!r} is not a boolean")


# Already canonical: returned as is (the status lists carry ~90,000 of them at a
# thousand units, and `uuid.UUID` costs ten times the match).
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalise_uuid(value: Any) -> str | None:
    """The canonical lower-case form of a UUID, or None when `value` is not one."""
    if not isinstance(value, str):
        return None
    if _CANONICAL_UUID.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError:
        return None


def require_uuid(data: Mapping[str, Any], key: str) -> str:
    value = normalise_uuid(data.get(key))
    if value is None:
        raise MalformedPayload(f"{key!r} is not a UUID: {data.get(key)!r}")
    return value


_URI_UUID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/?$"
)


def uuid_from_uri(value: Any) -> str | None:
    """The UUID at the end of a resource URI such as `/api/v2/location/<uuid>/`."""
    if not isinstance(value, str):
        return None
    match = _URI_UUID.search(value.strip())
    return normalise_uuid(match.group(1)) if match else None


def parse_timestamp(value: Any, what: str) -> datetime | None:
    """A naive datetime from `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS[.ffffff]`.

    The services send no zone: the value is in the upstream server's local clock. A value
    that does carry an offset is converted to UTC and made naive, to keep one type.
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise MalformedPayload(f"{what} is not a timestamp string")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise MalformedPayload(f"{what} is not a timestamp: {value!r}") from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


# --- responses


def is_json_response(response: requests.Response) -> bool:
    content_type = response.headers.get("Content-Type") or ""
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime == "application/json" or mime.endswith("+json")


def response_charset(response: requests.Response) -> str:
    """The declared charset, else UTF-8 (requests would assume Latin-1 for text/*)."""
    content_type = response.headers.get("Content-Type") or ""
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def response_text(response: requests.Response) -> str:
    try:
        return response.content.decode(response_charset(response), errors="replace")
    except LookupError:
        return response.content.decode("utf-8", errors="replace")


def body_text(response: requests.Response, limit: int = 2 * BODY_LIMIT) -> str:
    """The start of a response body as text, without ever raising.

    Read with a margin past BODY_LIMIT: the caller redacts, then cuts to the limit.
    """
    try:
        raw = response.content or b""
    except requests.RequestException:
        return ""
    try:
        return raw[:limit].decode(response_charset(response), errors="replace")
    except LookupError:
        return raw[:limit].decode("utf-8", errors="replace")


def json_or_none(response: requests.Response) -> Any:
    """The decoded body when it is labelled JSON and parses, else None."""
    if not is_json_response(response):
        return None
    try:
        return decoded_json(response)
    except (ValueError, requests.RequestException):
        return None


_NOT_DECODED = object()


def decoded_json(response: requests.Response) -> Any:
    """`json.loads` of the body, parsed once per response: an answer is decoded to check
    it for errors, then read (a status call, thousands a cycle, would parse twice)."""
    cached = response.__dict__.get("_lookout_json", _NOT_DECODED)
    if cached is _NOT_DECODED:
        cached = json.loads(response.content)
        response.__dict__["_lookout_json"] = cached
    return cached


def _flatten_messages(value: Any) -> list[str]:
    # Django form errors come as {"field": ["message", ...]} possibly nested by resource.
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _flatten_messages(item)]
    if isinstance(value, Mapping):
        found: list[str] = []
        for key, item in value.items():
            prefix = "" if key == "__all__" else f"{key}: "
            found.extend(prefix + text for text in _flatten_messages(item))
        return found
    return []


def upstream_message(response: requests.Response, payload: Any) -> str | None:
    """The service's own explanation of an answer, whatever error style it used."""
    if isinstance(payload, Mapping):
        for key in ("message", "error_message", "reason", "error"):
            value = payload.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        messages = _flatten_messages({k: v for k, v in payload.items() if k != "traceback"})
        return "; ".join(messages)[:500] or None
    if payload is not None:
        return None
    text = body_text(response, 500).strip()
    # A short plain sentence is a message; a whole HTML page is not.
    if text and not text.startswith("<") and len(text) < 500:
        return text
    return None


# --- paging


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a `{meta, objects}` list."""

    items: tuple[T, ...]
    total_count: int
    offset: int
    limit: int
    has_next: bool


_CREDENTIAL_PARAMS = frozenset({"username", "api_key"})


# --- client


class _ApiKeyAuth(requests.auth.AuthBase):
    """The `Authorization: ApiKey user:key` header.

    Given as `auth=`, so requests never swaps it for credentials found in a ~/.netrc.
    """

    def __init__(self, user: str, key: str) -> None:
        self._value = f"ApiKey {user}:{key}"

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = self._value
        return request

    def __repr__(self) -> str:
        return "_ApiKeyAuth([redacted])"


def _normalise_timeout(timeout: float | Sequence[float]) -> Timeout:
    if isinstance(timeout, int | float):
        return (float(timeout), float(timeout))
    connect, read = timeout
    return (float(connect), float(read))


class ApiClient:
    """A session bound to one upstream service and one set of credentials.

    `retries` is the number of tries a GET gets in all (at least one); other methods are
    tried once, because they are not idempotent. `backoff` is the first pause between
    tries, doubled each time.
    """

    service: ClassVar[str] = "upstream"
    errors: ClassVar[ErrorFamily] = ErrorFamily(
        unavailable=UpstreamUnavailable,
        auth=UpstreamAuthError,
        not_found=UpstreamNotFound,
        response=UpstreamResponseError,
        config=UpstreamConfigError,
    )

    def __init__(
        self,
        base_url: str,
        user: str,
        key: str,
        *,
        timeout: float | Sequence[float] = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        session: requests.Session | None = None,
    ) -> None:
        try:
            parts = urlsplit(base_url or "")
        except ValueError:
            parts = urlsplit("")
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise self.errors.config(
                f"{self.service} service URL must be an http(s) URL, got {base_url!r}",
                service=self.service,
            )
        if not user or not key:
            raise self.errors.config(
                f"{self.service} service user and API key must both be set",
                service=self.service,
            )
        self.base_url = base_url.rstrip("/")
        self.user = user
        self._key = key
        self._auth = _ApiKeyAuth(user, key)
        self.timeout = _normalise_timeout(timeout)
        self.retries = max(1, int(retries))
        self.backoff = max(0.0, float(backoff))
        if session is None:
            session = requests.Session()
            # The pollers share one client across their worker threads: keep a connection
            # per thread instead of the default ten.
            adapter = KeptPoolAdapter(pool_maxsize=POOL_SIZE)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            # Read proxy and CA settings from the environment once, not on every request
            # (requests re-scans os.environ per call: most of a status call's CPU time).
            session.trust_env = False
            session.proxies = requests.utils.get_environ_proxies(base_url)
            session.verify = (
                os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
            )
        self.session = session
        # The headers and auth of every plain GET, prepared once (see `_send_plain`).
        self._plain_get: requests.PreparedRequest | None = None
        if not self.session.auth:
            self._plain_get = requests.Request(
                "GET",
                f"{self.base_url}/",
                # The session's defaults under ours, as `Session.request` merges them.
                headers={
                    **self.session.headers,
                    **self._headers(accept="application/json", extra=None),
                },
                auth=self._auth,
            ).prepare()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r}, user={self.user!r})"

    # --- building requests

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _redact(self, text: str) -> str:
        return redact(text, (self._key,))

    @staticmethod
    def _headers(*, accept: str, extra: Mapping[str, str] | None) -> dict[str, str]:
        # Sent per request, so a session shared with other code is never altered.
        headers = {"User-Agent": USER_AGENT, "Accept": accept}
        headers.update(extra or {})
        return headers

    @staticmethod
    def _full_url(url: str, params: Params) -> str:
        if not params:
            return url
        try:
            prepared = requests.Request("GET", url, params=params).prepare()
        except requests.RequestException:
            return url
        return prepared.url or url

    def _follow_link(self, link: str) -> str:
        """Absolute form of a relative `next` link, minus any credentials it echoes.

        We keep authenticating with the header; a key in the query would end up in
        access logs. A link to another host is refused rather than sent our header.
        """
        absolute = urljoin(f"{self.base_url}/", link)
        parts = urlsplit(absolute)
        base = urlsplit(self.base_url)
        if (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
            raise self.errors.response(
                f"{self.service} service sent a paging link to another host: "
                f"{self._redact(absolute)}",
                service=self.service,
                url=self._redact(absolute),
            )
        query = [
            (name, value)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
            if name not in _CREDENTIAL_PARAMS
        ]
        return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))

    # --- sending

    def _send(
        self,
        method: str,
        url: str,
        *,
        params: Params = None,
        data: Any = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
        accept: str = "application/json",
        auth: bool = True,
        stream: bool = False,
        once: bool = False,
        read_timeout: float | None = None,
    ) -> requests.Response:
        """Send one request, retrying idempotent GETs (not a GET that acts, `once`); never
        raises a `requests` error. `read_timeout` replaces the client's for this call."""
        timeout = self.timeout if read_timeout is None else (self.timeout[0], read_timeout)
        # Only messages show the URL, and most calls have none to write.
        shown_url = functools.cache(lambda: self._redact(self._full_url(url, params)))

        tries = self.retries if method == "GET" and not once else 1
        for attempt in range(1, tries + 1):
            started = time.monotonic()
            try:
                plain = (
                    method == "GET"
                    and params is None
                    and data is None
                    and json_body is None
                    and headers is None
                    and accept == "application/json"
                    and auth
                    and not stream
                )
                # Not `or`: a Response of a 4xx or 5xx answer is falsy.
                response = self._send_plain(url) if plain else None
                if response is None:
                    response = self.session.request(
                        method,
                        url,
                        params=params,
                        data=data,
                        json=json_body,
                        headers=self._headers(accept=accept, extra=headers),
                        auth=self._auth if auth else None,
                        timeout=timeout,
                        allow_redirects=False,
                        stream=stream,
                    )
            except (
                requests.ConnectionError,
                requests.Timeout,
                requests.exceptions.ChunkedEncodingError,
            ) as exc:
                reason = "timed out" if isinstance(exc, requests.Timeout) else "could not connect"
                detail = self._redact(str(exc))
                if attempt < tries:
                    self._pause(method, shown_url(), f"{reason}: {detail}", attempt, tries)
                    continue
                raise self.errors.unavailable(
                    f"{self.service} service {reason} ({method} {shown_url()}): {detail}",
                    service=self.service,
                    url=shown_url(),
                ) from None
            except requests.RequestException as exc:
                # Invalid URL, undecodable body and the like: retrying will not help.
                raise self.errors.response(
                    f"{self.service} service request failed ({method} {shown_url()}): "
                    f"{self._redact(str(exc))}",
                    service=self.service,
                    url=shown_url(),
                ) from None
            elapsed_ms = (time.monotonic() - started) * 1000
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "%s %s -> %s in %.0f ms", method, shown_url(), response.status_code, elapsed_ms
                )
            if response.status_code in RETRYABLE_STATUSES and attempt < tries:
                response.close()
                self._pause(method, shown_url(), f"HTTP {response.status_code}", attempt, tries)
                continue
            return response
        raise AssertionError("unreachable: the last try either returns or raises")

    def _send_plain(self, url: str) -> requests.Response | None:
        """Send a plain GET (no query, headers or body of its own: a status call,
        thousands a cycle) straight to the session's transport adapter, as a copy of one
        request prepared in advance; None when `url` is not that simple.

        `Session.request` spends more CPU than the connection itself merging settings,
        cookies and hooks this client never uses; the adapter is what it would call, so
        the answer, its errors and redirects (never followed) are the same. (Cookies:
        the services authenticate by header; a session that holds some, or has hooks,
        goes the usual way.)"""
        template = self._plain_get
        path = url[len(self.base_url) :]
        if (
            template is None
            or not url.startswith(self.base_url)
            or not _PLAIN_PATH.fullmatch(path)
            or self.session.cookies
            or any(self.session.hooks.values())
        ):
            return None
        prepared = template.copy()
        prepared.url = url
        verify = self.session.verify if self.session.verify is not None else True
        return self.session.get_adapter(url).send(
            prepared, timeout=self.timeout, verify=verify, proxies=self.session.proxies
        )

    def _pause(self, method: str, shown_url: str, reason: str, attempt: int, tries: int) -> None:
        delay = self.backoff * (2 ** (attempt - 1))
        logger.warning(
            "%s service: %s %s failed (%s); try %d of %d in %.1f s",
            self.service,
            method,
            shown_url,
            reason,
            attempt + 1,
            tries,
            delay,
        )
        time.sleep(delay)

    # --- checking answers

    def _error_kind(self, response: requests.Response, payload: Any) -> type[UpstreamError] | None:
        """Which error an answer is, or None for a success. Services refine this."""
        status = response.status_code
        if 300 <= status < 400:
            return self.errors.response
        if status in {401, 403}:
            return self.errors.auth
        if status == 404:
            return self.errors.not_found
        if status in RETRYABLE_STATUSES:
            return self.errors.unavailable
        if not 200 <= status < 300:
            return self.errors.response
        # Some answers say `error: true` with a 2xx status; `error: false` is a success.
        if isinstance(payload, Mapping) and payload.get("error") is True:
            return self.errors.response
        return None

    def _check(self, response: requests.Response, method: str) -> None:
        payload = json_or_none(response)
        kind = self._error_kind(response, payload)
        if kind is None:
            return
        message = upstream_message(response, payload)
        shown_url = self._redact(response.url or "")
        summary = (
            f"{self.service} service answered {method} {shown_url} with {response.status_code}"
        )
        if 300 <= response.status_code < 400:
            location = self._redact(response.headers.get("Location") or "?")
            summary += f": redirect to {location} not followed"
        elif message:
            summary += f": {self._redact(message)}"
        body = self._redact(body_text(response))
        response.close()
        raise kind(
            summary,
            service=self.service,
            url=shown_url,
            status=response.status_code,
            body=body,
            upstream_message=self._redact(message) if message else None,
        )

    def _malformed(self, response: requests.Response, method: str, reason: str) -> UpstreamError:
        shown_url = self._redact(response.url or "")
        return self.errors.response(
            f"{self.service} service sent a malformed answer ({method} {shown_url}): {reason}",
            service=self.service,
            url=shown_url,
            status=response.status_code,
            body=self._redact(body_text(response)),
            unreadable=True,
        )

    def _decode_json(self, response: requests.Response, method: str) -> Any:
        if not is_json_response(response):
            content_type = response.headers.get("Content-Type") or "no Content-Type"
            raise self._malformed(response, method, f"expected JSON, got {content_type}")
        try:
            return decoded_json(response)
        except (ValueError, requests.RequestException) as exc:
            raise self._malformed(response, method, f"the body is not valid JSON ({exc})") from None

    # --- helpers for clients

    def _request(self, method: str, url: str, **kwargs: Any) -> requests.Response:
        """Send and check; the caller reads the body."""
        response = self._send(method, url, **kwargs)
        self._check(response, method)
        return response

    def _request_json(self, method: str, url: str, **kwargs: Any) -> Any:
        response = self._request(method, url, **kwargs)
        return self._decode_json(response, method)

    def _parse(
        self, parse: Callable[[Any], T], payload: Any, response: requests.Response, method: str
    ) -> T:
        try:
            return parse(payload)
        except MalformedPayload as exc:
            raise self._malformed(response, method, str(exc)) from None

    def _parse_items(
        self, parse: Callable[[Any], T], items: Iterable[Any], url: str
    ) -> Iterator[T]:
        """Parse list items, skipping (and logging) the ones that do not parse."""
        for index, item in enumerate(items):
            try:
                yield parse(item)
            except MalformedPayload as exc:
                logger.warning(
                    "%s service: skipped malformed item %d from %s: %s",
                    self.service,
                    index,
                    self._redact(url),
                    self._redact(str(exc)),
                )

    def _list_envelope(
        self, payload: Any, response: requests.Response
    ) -> tuple[Mapping[str, Any], list[Any]]:
        try:
            data = require_mapping(payload, "the list answer")
            meta = require_mapping(data.get("meta"), "meta")
            objects = require_list(data.get("objects"), "objects")
        except MalformedPayload as exc:
            raise self._malformed(response, "GET", str(exc)) from None
        return meta, objects

    def _fetch_page(self, path: str, params: Params, parse: Callable[[Any], T]) -> Page[T]:
        """One page of a `{meta, objects}` list."""
        response = self._request("GET", self._url(path), params=params)
        meta, objects = self._list_envelope(self._decode_json(response, "GET"), response)
        try:
            total = to_int(meta.get("total_count"), "total_count")
            offset = to_int(meta.get("offset"), "offset")
            limit = to_int(meta.get("limit"), "limit")
        except MalformedPayload as exc:
            raise self._malformed(response, "GET", str(exc)) from None
        items = tuple(self._parse_items(parse, objects, response.url or path))
        return Page(
            items=items,
            total_count=total if total is not None else len(objects),
            offset=offset or 0,
            limit=limit if limit is not None else len(objects),
            has_next=bool(meta.get("next")),
        )

    def _iter_objects(
        self, path: str, params: Params, parse: Callable[[Any], T], key: Callable[[T], str]
    ) -> Iterator[T]:
        """Every object of a `{meta, objects}` list, page by page, lazily.

        Follows `meta.next`. The lists have no guaranteed order, so an object can show up
        on two pages while others are added; each `key` is yielded once.
        """
        url: str | None = self._url(path)
        query: Params = params
        seen_keys: set[str] = set()
        visited: set[str] = set()
        while url is not None:
            response = self._request("GET", url, params=query)
            meta, objects = self._list_envelope(self._decode_json(response, "GET"), response)
            for item in self._parse_items(parse, objects, response.url or url):
                item_key = key(item)
                if item_key not in seen_keys:
                    seen_keys.add(item_key)
                    yield item
            link = meta.get("next")
            if not isinstance(link, str) or not link or not objects:
                return
            url, query = self._follow_link(link), None
            if url in visited:
                logger.warning(
                    "%s service: paging link repeats itself, stopping at %s",
                    self.service,
                    self._redact(url),
                )
                return
            visited.add(url)
