"""No log line carries a wall token: not Django's, not gunicorn's access or error log.

The screen presents its token once (it is swapped for a cookie); these check the second
guard, the filter on every handler and gunicorn's scrubbing logger.
"""

from __future__ import annotations

import io
import logging
import os
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.test import Client
from gunicorn.config import Config as GunicornConfig

from config.gunicorn import ScrubbingLogger
from dashboard.lib.log_filters import WallTokenFilter
from dashboard.lib.redaction import redact_wall_tokens
from dashboard.services import wall_links
from tests.support.wall_screen import wait_until_answering, wall_open, wall_token_create

ROOT = Path(__file__).resolve().parent.parent.parent
TOKEN = "Q" * 20 + "_-" + "z9" * 10 + "x"  # 43 characters, as token_urlsafe(32) makes


def test_the_token_pattern_covers_plain_and_encoded_paths():
    assert len(TOKEN) == 43
    assert redact_wall_tokens(f"GET /wall/{TOKEN}/ HTTP/1.1") == "GET /wall/[redacted]/ HTTP/1.1"
    assert TOKEN not in redact_wall_tokens(f"next=%2Fwall%2F{TOKEN}%2F")
    assert TOKEN not in redact_wall_tokens(f"https://lookout.example.org/wall/{TOKEN}")
    # Other wall addresses are left as they are.
    assert redact_wall_tokens("GET /wall/links/create/") == "GET /wall/links/create/"


def test_the_filter_rewrites_a_message_built_from_arguments():
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "Not Found: %s (%d)", (f"/wall/{TOKEN}/", 404), None
    )

    assert WallTokenFilter().filter(record) is True
    assert record.getMessage() == "Not Found: /wall/[redacted]/ (404)"


@pytest.mark.django_db
def test_django_request_log_lines_carry_no_token(token_stream):
    revoked = wall_links.wall_link_create(name="Lobby").token
    wall_links.wall_link_revoke(name="Lobby")

    Client().get(f"/wall/{TOKEN}/")  # unknown: django.request logs "Not Found: <path>"
    Client().get(f"/wall/{revoked}/")  # revoked: "Forbidden: <path>"

    logged = token_stream.getvalue()
    assert "Not Found: /wall/[redacted]/" in logged
    assert "Forbidden: /wall/[redacted]/" in logged
    assert TOKEN not in logged and revoked not in logged


@pytest.fixture
def token_stream():
    """The output of the handler settings.LOGGING puts on the root logger."""
    handlers = [h for h in logging.getLogger().handlers if h.get_name() == "console"]
    assert handlers, "settings.LOGGING's console handler is not on the root logger"
    stream = io.StringIO()
    previous = handlers[0].setStream(stream)
    yield stream
    handlers[0].setStream(previous)


def gunicorn_logger(stream: io.StringIO) -> ScrubbingLogger:
    cfg = GunicornConfig()
    cfg.set("accesslog", "-")
    logger = ScrubbingLogger(cfg)
    for log in (logger.access_log, logger.error_log):
        for handler in log.handlers:
            handler.setStream(stream)
    return logger


def test_gunicorns_access_log_line_carries_no_token():
    stream = io.StringIO()
    logger = gunicorn_logger(stream)
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": f"/wall/{TOKEN}/",
        "PATH_INFO": f"/wall/{TOKEN}/",
        "QUERY_STRING": f"next=/wall/{TOKEN}/",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_REFERER": f"https://lookout.example.org/wall/{TOKEN}/",
        "REMOTE_ADDR": "10.0.0.9",
    }
    response = SimpleNamespace(status="302 Found", sent=0, headers=[("Location", "/wall/")])
    request = SimpleNamespace(headers=[("REFERER", f"/wall/{TOKEN}/")])

    logger.access(response, request, environ, timedelta(milliseconds=3))
    logger.error_log.error("Invalid request from %s: /wall/%s/", "10.0.0.9", TOKEN)

    logged = stream.getvalue()
    assert '"GET /wall/[redacted]/ HTTP/1.1" 302' in logged
    assert "Invalid request from 10.0.0.9: /wall/[redacted]/" in logged
    assert TOKEN not in logged


def test_the_image_runs_gunicorn_with_the_scrubbing_configuration():
    dockerfile = (ROOT / "Dockerfile").read_text()

    assert '"--config", "python:config.gunicorn"' in dockerfile
    assert "--access-logfile" not in dockerfile  # the configuration turns it on


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.integration
def test_a_real_gunicorn_logs_wall_requests_without_their_token(tmp_path):
    env = {
        "PATH": os.environ.get("PATH", ""),
        "LOOKOUT_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    token = wall_token_create(env)
    port = free_port()
    log_path = tmp_path / "gunicorn.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "config.wsgi",
                "--config", "python:config.gunicorn",
                "--bind", f"127.0.0.1:{port}", "--workers", "1",
                "--control-socket", str(tmp_path / "gunicorn.ctl"),
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_answering(base, seconds=30, server=server)
        wall_open(base, token, refreshes=3)  # the screen's refreshes
    finally:
        server.terminate()
        server.wait(timeout=10)

    logged = log_path.read_text()
    assert "GET /wall/[redacted]/ HTTP/1.1" in logged
    assert logged.count('"GET /wall/ HTTP/1.1" 200') == 3
    assert token not in logged
