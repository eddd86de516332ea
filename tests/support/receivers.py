"""Real receivers of alert messages for integration tests: an SMTP server (aiosmtpd) and
an HTTP webhook receiver, each on a free loopback port.

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
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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
