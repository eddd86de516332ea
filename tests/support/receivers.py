"""Real receivers of alert messages for integration tests: an SMTP server (aiosmtpd), an
HTTP webhook receiver, and a recording HTTP(S) receiver for Apprise's services, each on a
free loopback port.

The webhook receiver checks the HMAC signature like a real one would (401 when wrong),
keeps every body it accepted and every message id that reached it, and can hold the
first request open: it starts the answer and then drips header lines until released,
so the sender stays inside its send (a read timeout never fires) for as long as a test
needs to stop or kill it there.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

from aiosmtpd.controller import Controller

from tests.support.redis_server import free_port

MESSAGE_ID_HEADER = "X-Lookout-Message-Id"
SIGNATURE_HEADER = "X-Lookout-Signature"
# A held request never outlives this, whatever the test does.
HOLD_LIMIT_SECONDS = 30.0


class Inbox:
    """aiosmtpd handler that keeps every message it accepted."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        self.messages.append(message_from_bytes(envelope.original_content))
        return "250 Message accepted for delivery"

    @property
    def message_ids(self) -> list[str]:
        return [str(message[MESSAGE_ID_HEADER]) for message in self.messages]


@contextmanager
def smtp_server() -> Iterator[tuple[int, Inbox]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, inbox
    finally:
        controller.stop()


class WebhookReceiver:
    def __init__(self, *, hold_first: bool = False) -> None:
        self.secret = ""
        # Bodies of correctly signed POSTs, and the message id of every POST that arrived
        # (a held one too: a receiver has the message once it has read the body).
        self.received: list[dict[str, Any]] = []
        self.arrivals: list[str] = []
        self.hold_first = hold_first
        self.held = threading.Event()
        self.release = threading.Event()
        self.url = ""
        self._lock = threading.Lock()

    def _take(self, body: bytes, headers: Any) -> tuple[bool, bool]:
        """(signature good, hold this one)."""
        expected = hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
        signed = hmac.compare_digest(headers.get(SIGNATURE_HEADER, ""), f"sha256={expected}")
        with self._lock:
            self.arrivals.append(headers.get(MESSAGE_ID_HEADER, ""))
            if signed:
                self.received.append(json.loads(body))
            hold = self.hold_first and not self.held.is_set()
            if hold:
                self.held.set()
        return signed, hold


def _handler(receiver: WebhookReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            signed, hold = receiver._take(body, self.headers)
            if not signed:
                self.send_response(401)
                self.end_headers()
                return
            if hold:
                self._drip_until_released()
                return
            self.send_response(204)
            self.end_headers()

        def _drip_until_released(self) -> None:
            deadline = time.monotonic() + HOLD_LIMIT_SECONDS
            try:
                self.wfile.write(b"HTTP/1.0 204 No Content\r\n")
                self.wfile.flush()
                while not receiver.release.wait(0.2) and time.monotonic() < deadline:
                    self.wfile.write(b"X-Still-Thinking: yes\r\n")
                    self.wfile.flush()
                self.wfile.write(b"\r\n")
                self.wfile.flush()
            except OSError:
                pass  # the sender is gone (killed): nobody to answer

        def log_message(self, *args):
            pass

    return Handler


@contextmanager
def webhook_receiver(*, hold_first: bool = False) -> Iterator[WebhookReceiver]:
    receiver = WebhookReceiver(hold_first=hold_first)
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _handler(receiver))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    receiver.url = f"http://127.0.0.1:{server.server_port}/hook"
    try:
        yield receiver
    finally:
        receiver.release.set()
        server.shutdown()
        server.server_close()


# --- A recording receiver for Apprise's services ------------------------------------


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # without the query
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


# What a Matrix homeserver answers to the calls Apprise makes with an access token.
MATRIX_ROOM_ID = "!lookout:127.0.0.1"
MATRIX_ANSWERS = {
    "/account/whoami": {"user_id": "@lookout:127.0.0.1", "device_id": "LOOKOUT"},
    "/join/": {"room_id": MATRIX_ROOM_ID},
    "/send/m.room.message/": {"event_id": "$1"},
}


class HttpRecorder:
    """Keeps every request as it arrived and answers each with the next status of
    `statuses` (200 once they run out), a JSON body as a Matrix homeserver would."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.statuses: list[int] = []
        self.base = ""  # scheme, host and port
        self._lock = threading.Lock()

    @property
    def hostport(self) -> str:
        return self.base.split("://", 1)[1]

    def _take(self, recorded: Recorded) -> tuple[int, bytes]:
        with self._lock:
            self.requests.append(recorded)
            status = self.statuses.pop(0) if self.statuses else 200
        if status >= 400:
            return status, b'{"error": "the receiver was told to fail"}'
        if recorded.path.endswith("/state/m.room.encryption"):
            return 404, b'{"errcode": "M_NOT_FOUND"}'  # an unencrypted room
        for part, answer in MATRIX_ANSWERS.items():
            if part in recorded.path:
                return status, json.dumps(answer).encode()
        return status, b"{}"


def _recording_handler(recorder: HttpRecorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            path, _, query = self.path.partition("?")
            status, body = recorder._take(
                Recorded(
                    method=self.command,
                    path=unquote(path),
                    query=dict(parse_qsl(query)),
                    headers=dict(self.headers.items()),
                    body=self.rfile.read(length) if length else b"",
                )
            )
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = _any

        def log_message(self, *args):
            pass

    return Handler


def _self_signed_context(folder: Path) -> ssl.SSLContext:
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


@contextmanager
def http_recorder(*, tls_folder: Path | None = None) -> Iterator[HttpRecorder]:
    """A recording receiver on a free loopback port; HTTPS with a self-signed certificate
    when given a folder for it (Apprise's Teams workflows speak only HTTPS)."""
    recorder = HttpRecorder()
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _recording_handler(recorder))
    server.daemon_threads = True
    if tls_folder is not None:
        server.socket = _self_signed_context(tls_folder).wrap_socket(
            server.socket, server_side=True
        )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    scheme = "https" if tls_folder is not None else "http"
    recorder.base = f"{scheme}://127.0.0.1:{server.server_port}"
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()
