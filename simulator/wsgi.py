"""Small WSGI helpers shared by both fake services: requests, responses, routing.

Only the stdlib; just enough to mimic the real services' wire behaviour.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        headers = list(self.headers)
        if self.content_type is not None:
            headers.append(("Content-Type", self.content_type))
        headers.append(("Content-Length", str(len(self.body))))
        start_response(status_line(self.status), headers)
        # HEAD gets the headers only.
        if environ.get("REQUEST_METHOD") == "HEAD":
            return [b""]
        return [self.body]


@dataclass
class StreamingResponse(Response):
    """A body sent as it is produced, without a length (the connection closes after it)."""

    chunks: Iterable[bytes] = ()

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        headers = list(self.headers)
        if self.content_type is not None:
            headers.append(("Content-Type", self.content_type))
        start_response(status_line(self.status), headers)
        if environ.get("REQUEST_METHOD") == "HEAD":
            return [b""]
        return self.chunks


def status_line(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    return f"{status} {phrase}"


def json_response(
    payload: Any, status: int = 200, headers: list[tuple[str, str]] | None = None
) -> Response:
    body = json.dumps(payload).encode("utf-8")
    return Response(status, body, "application/json", list(headers or []))


def text_response(
    text: str,
    status: int = 200,
    content_type: str = "text/plain; charset=utf-8",
    headers: list[tuple[str, str]] | None = None,
) -> Response:
    return Response(status, text.encode("utf-8"), content_type, list(headers or []))


def empty_response(status: int = 204, headers: list[tuple[str, str]] | None = None) -> Response:
    return Response(status, b"", None, list(headers or []))


class Request:
    """The parts of a WSGI environ the handlers need, parsed once."""

    def __init__(self, environ: Environ) -> None:
        self.environ = environ
        self.method: str = environ.get("REQUEST_METHOD", "GET").upper()
        # PEP 3333 hands the path over as latin-1 decoded bytes; recover UTF-8.
        raw_path = environ.get("PATH_INFO", "") or "/"
        self.path: str = raw_path.encode("latin-1").decode("utf-8", "replace")
        self.query_string: str = environ.get("QUERY_STRING", "")
        self.query: dict[str, list[str]] = parse_qs(self.query_string, keep_blank_values=True)
        self.content_type: str = environ.get("CONTENT_TYPE", "") or ""
        self.body: bytes = self._read_body()
        self.params: dict[str, str] = {}  # filled by the router from the path
        self._form: dict[str, list[str]] | None = None

    def _read_body(self) -> bytes:
        try:
            length = int(self.environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length <= 0:
            return b""
        return self.environ["wsgi.input"].read(length)

    def header(self, name: str, default: str = "") -> str:
        key = "HTTP_" + name.upper().replace("-", "_")
        if name.lower() == "content-type":
            key = "CONTENT_TYPE"
        return self.environ.get(key, default) or default

    @property
    def media_type(self) -> str:
        return self.content_type.split(";", 1)[0].strip().lower()

    @property
    def is_json(self) -> bool:
        return self.media_type == "application/json"

    def json(self) -> Any:
        """The body as JSON; raises ValueError when it is not valid JSON."""
        return json.loads(self.body.decode("utf-8"))

    @property
    def form(self) -> dict[str, list[str]]:
        """Form-encoded body fields (empty for other content types)."""
        if self._form is None:
            if self.media_type == "application/x-www-form-urlencoded" and self.body:
                text = self.body.decode("utf-8", "replace")
                self._form = parse_qs(text, keep_blank_values=True)
            else:
                self._form = {}
        return self._form

    def query_value(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else default

    def form_value(self, name: str, default: str | None = None) -> str | None:
        values = self.form.get(name)
        return values[-1] if values else default

    def form_list(self, name: str) -> list[str]:
        return list(self.form.get(name, []))


Handler = Callable[[Request], Response]


@dataclass
class Route:
    pattern: re.Pattern[str]
    methods: dict[str, Handler]


class Router:
    """Regex routes with per-method handlers.

    A path that matches no route gets `not_found`; a path that matches but
    with another method gets 405 with an `Allow` header, before any handler
    (and so before auth), as the real services do.
    """

    def __init__(self, not_found: Callable[[Request], Response] | None = None) -> None:
        self.routes: list[Route] = []
        self.not_found = not_found or (lambda request: text_response("Not Found", 404))

    def add(self, pattern: str, methods: dict[str, Handler]) -> None:
        """`pattern` is a regex matched against the whole path; named groups become params."""
        upper = {method.upper(): handler for method, handler in methods.items()}
        self.routes.append(Route(re.compile(pattern), upper))

    def resolve(self, request: Request) -> Response:
        for route in self.routes:
            match = route.pattern.fullmatch(request.path)
            if match is None:
                continue
            handler = route.methods.get(request.method)
            if handler is None and request.method == "HEAD":
                handler = route.methods.get("GET")
            if handler is None:
                allow = ", ".join(sorted(route.methods))
                return empty_response(405, [("Allow", allow)])
            request.params = {k: v for k, v in match.groupdict().items() if v is not None}
            return handler(request)
        return self.not_found(request)

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        request = Request(environ)
        return self.resolve(request)(environ, start_response)
