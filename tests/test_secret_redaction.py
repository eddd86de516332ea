"""No configured secret reaches a stored error text, whatever path the text took.

The clients hide their own key; these tests build errors that slipped past them (a key
in a plain message, another service's key) and check where they are stored and shown.
"""

from __future__ import annotations

import io
import logging
import sys
from datetime import timedelta

import pytest
import responses
from django.test import Client
from django.utils import timezone

from dashboard.clients.base import UpstreamUnavailable
from dashboard.clients.storage import StorageClient, StorageResponseError, StorageUnavailable
from dashboard.lib.pipelines import pipeline_list
from dashboard.lib.secret_redaction import RedactingFormatter, configured_secrets, redact_secrets
from dashboard.models import FixityCheck
from dashboard.services import freshness as freshness_services
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from dashboard.services.actions import action_perform
from tests.support.records import poll_record
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

WORKFLOW_KEY = "workflow-key-3c9e1b7d"
STORAGE_KEY = "storage-key-8a2f4e60"


@pytest.fixture(autouse=True)
def _keys(settings):
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": "Default",
            "url": "http://wf.test",
            "user": "u",
            "key": WORKFLOW_KEY,
        }
    ]
    settings.LOOKOUT_STORAGE = {"url": "http://ss.test", "user": "u", "key": STORAGE_KEY}


def test_every_configured_key_and_url_password_is_a_secret(settings):
    settings.REDIS_URL = "redis://:redis%2Fpass@cache.internal:6379/0"

    assert {WORKFLOW_KEY, STORAGE_KEY, "redis/pass"} <= set(configured_secrets())


def test_redaction_hides_a_bare_key_and_an_api_key_parameter():
    text = f"refused {STORAGE_KEY} at http://x/?api_key=other-secret&limit=1"

    assert redact_secrets(text) == "refused [redacted] at http://x/?api_key=[redacted]&limit=1"


def test_a_poll_error_is_stored_without_the_key_and_pages_do_not_show_it():
    freshness_services.service_poll_record(
        service="workflow:default",
        started_at=timezone.now() - timedelta(minutes=5),
        ok=False,
        error=f"workflow service said: bad key {WORKFLOW_KEY}",
        duration_ms=3,
        requests=1,
    )
    client = Client()
    client.force_login(make_user("vera", "viewer"))

    assert WORKFLOW_KEY not in poll_record("workflow:default").last_error
    for url in ("/", "/units/", "/wall/", "/api/v1/health/", "/healthz"):
        assert WORKFLOW_KEY.encode() not in client.get(url).content, url


def test_a_failed_storage_poll_stores_no_key(monkeypatch):
    def broken_client() -> StorageClient:
        raise StorageUnavailable(f"could not connect with {STORAGE_KEY}", service="storage")

    monkeypatch.setattr(storage_services, "get_storage_client", broken_client)

    summary = storage_services.storage_poll(budget_seconds=1)

    assert not summary.ok
    assert STORAGE_KEY not in summary.error
    assert STORAGE_KEY not in poll_record("storage").last_error


def test_an_audit_row_never_keeps_a_key_from_an_upstream_message():
    operator = make_user("otto", "operator")

    def call():
        raise UpstreamUnavailable(
            f"storage service could not connect: {STORAGE_KEY}", service="storage"
        )

    result = action_perform(
        user=operator,
        permission="dashboard.operate_packages",
        action="package_move",
        idempotency_key="s" * 32,
        target_kind="package",
        target="pkg-1",
        call=call,
    )

    assert result.entry.outcome == "failed"
    result.entry.refresh_from_db()
    assert STORAGE_KEY not in result.entry.upstream_message
    assert "[redacted]" in result.entry.upstream_message


def test_a_fixity_error_is_stored_without_the_key():
    check = storage_services.fixity_check_create(package_uuid="0" * 32, requested_by="otto")

    class Failing:
        def check_fixity(self, uuid: str, **kwargs):
            raise StorageResponseError(
                "storage service answered 500",
                service="storage",
                status=500,
                upstream_message=f"Traceback: auth {STORAGE_KEY}",
            )

    storage_services.fixity_check_run(check_id=check.pk, client=Failing())

    stored = FixityCheck.objects.get(pk=check.pk)
    assert stored.error == "Traceback: auth [redacted]"


def test_a_fixity_check_that_never_ran_stores_no_key():
    check = storage_services.fixity_check_create(package_uuid="0" * 32, requested_by="otto")

    storage_services.fixity_check_fail(check_id=check.pk, reason=f"broker said {STORAGE_KEY}")

    assert STORAGE_KEY not in FixityCheck.objects.get(pk=check.pk).error


def test_log_lines_and_tracebacks_are_written_without_the_keys():
    formatter = RedactingFormatter("%(levelname)s %(message)s")
    try:
        raise RuntimeError(f"upstream said {WORKFLOW_KEY}")
    except RuntimeError:
        record = logging.LogRecord(
            "dashboard", logging.WARNING, __file__, 1, "poll failed: %s", (STORAGE_KEY,), None
        )
        record.exc_info = sys.exc_info()

    line = formatter.format(record)

    assert WORKFLOW_KEY not in line and STORAGE_KEY not in line
    assert line.startswith("WARNING poll failed: [redacted]")
    assert "RuntimeError: upstream said [redacted]" in line


def test_the_console_log_handler_uses_the_redacting_formatter(settings):
    assert settings.LOGGING["formatters"]["plain"]["()"].endswith("RedactingFormatter")


def test_the_worker_log_handlers_redact_and_keep_their_format():
    from celery.signals import after_setup_logger

    logger = logging.getLogger("qa-worker-test")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("[worker] %(message)s"))
    logger.addHandler(handler)
    try:
        after_setup_logger.send(sender=None, logger=logger, loglevel=logging.INFO)
        logger.warning("jobs not refreshed: %s", WORKFLOW_KEY)
    finally:
        logger.removeHandler(handler)

    assert stream.getvalue() == "[worker] jobs not refreshed: [redacted]\n"


class _Unreachable:
    """A workflow client whose every call fails with the key in the message."""

    def __getattr__(self, name: str):
        def fail(*args, **kwargs):
            raise UpstreamUnavailable(f"no answer for {WORKFLOW_KEY}", service="workflow")

        return fail


def test_a_failed_workflow_poll_reports_and_stores_no_key():
    pipeline = pipeline_list()[0]

    summary = unit_services.workflow_poll(pipeline=pipeline, client=_Unreachable())

    assert not summary.ok
    assert WORKFLOW_KEY not in summary.line()
    assert WORKFLOW_KEY not in poll_record("workflow:default").last_error


def test_a_paging_link_to_another_host_is_reported_without_the_key():
    client = StorageClient("http://ss.test", "u", STORAGE_KEY)
    with responses.RequestsMock() as mocked:
        mocked.get(
            "http://ss.test/api/v2/file/",
            json={
                "meta": {"next": f"http://evil.test/api/v2/file/?token={STORAGE_KEY}"},
                "objects": [{"uuid": "not-a-package"}],
            },
        )
        with pytest.raises(StorageResponseError) as raised:
            list(client.list_packages())

    assert STORAGE_KEY not in str(raised.value)
