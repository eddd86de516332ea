"""The workflow service's own dashboard (its web UI's JSON), beside the public API.

Sign-in (`dashboard_auth.py`), the transfer and ingest status lists
(`status_lists.py`), the count of waiting decisions and the decision endpoint, with
the job server's outages (`job_server.py`). These routes know sessions only: an API
key is answered with the redirect to the login page, as the real service does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from simulator.dashboard_auth import LOGIN_PATH, csrf_failure, csrf_ok, redirect_to_login
from simulator.job_server import QueuedAnswer
from simulator.status_lists import stream_status_list
from simulator.units import SIP, TRANSFER
from simulator.wsgi import (
    Request,
    Response,
    Router,
    StreamingResponse,
    json_response,
    text_response,
)

GATEWAY_TIMEOUT_PAGE = "<html><body><h1>504 Gateway Time-out</h1></body></html>\n"


def _gateway_timeout() -> Response:
    return text_response(GATEWAY_TIMEOUT_PAGE, 504, "text/html")


def _none() -> Response:
    """What `/mcp/execute/` answers, whether the job server acted or not."""
    return text_response("None", 200, "text/plain")


def add_dashboard_routes(router: Router, sim: Any, slash: Callable[[str], None]) -> None:
    sessions, job_server = sim.sessions, sim.job_server

    def signed_in(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def run(request: Request) -> Response:
            if not sessions.signed_in(request):
                return redirect_to_login(request)
            return handler(request)

        return run

    def slow() -> None:
        if job_server.slow_seconds:
            time.sleep(job_server.slow_seconds)

    def status_list(kind: str) -> Callable[[Request], Response]:
        def handle(request: Request) -> Response:
            if not job_server.up and not job_server.wait_until_up(job_server.wait_seconds):
                return json_response({"objects": {}, "mcp": False})
            slow()
            t = sim.workflow.seconds(sim.sync())
            chunks = stream_status_list(sim, kind, t)
            return StreamingResponse(200, content_type="application/json", chunks=chunks)

        return signed_in(handle)

    def waiting_counts(request: Request) -> Response:
        if not job_server.up and not job_server.wait_until_up():
            return _gateway_timeout()
        slow()
        now = sim.sync()
        with sim.lock:
            t = sim.workflow.seconds(now)
            counts = {"sip": 0, "transfer": 0, "dip": 0}
            for unit, _ in sim.workflow.waiting_decisions(t):
                counts["transfer" if unit.kind == TRANSFER else "sip"] += 1
        return json_response(counts)

    def execute(request: Request) -> Response:
        if not csrf_ok(request):
            return csrf_failure()
        answer = QueuedAnswer(request.form_value("uuid") or "", request.form_value("choice") or "")
        if job_server.queue_if_down(answer):
            return _none() if job_server.wait_until_up() else _gateway_timeout()
        slow()
        sim.carry_out(answer)
        return _none()

    def login_form(request: Request) -> Response:
        return sessions.login_page(request)

    def login(request: Request) -> Response:
        return sessions.login(request)

    router.add(LOGIN_PATH, {"GET": login_form, "POST": login})
    slash(LOGIN_PATH.rstrip("/"))
    router.add("/transfer/status/", {"GET": status_list(TRANSFER)})
    router.add("/ingest/status/", {"GET": status_list(SIP)})
    router.add("/status/", {"GET": signed_in(waiting_counts)})
    router.add("/mcp/execute/", {"POST": signed_in(execute)})
    for path in ("/transfer/status", "/ingest/status", "/status", "/mcp/execute"):
        slash(path)
