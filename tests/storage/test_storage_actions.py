from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from dashboard.clients.storage import (
    FixityResult,
    StorageResponseError,
    StorageUnavailable,
)
from dashboard.models import AuditEntry, FixityCheck, StoragePackage
from dashboard.selectors import storage as storage_selectors
from dashboard.services import package_actions
from dashboard.services import storage as storage_services
from tests.storage.fakes import (
    AIP_STORE,
    AIP_STORE_2,
    DIP_STORE,
    PEER_PIPELINE,
    PIPELINE,
    package_uuid,
)

pytestmark = pytest.mark.django_db

AIP = package_uuid(1)
OPERATIONS = ["fixity", "download", "delete", "recover", "reingest", "move"]
VALID_FIELDS = {
    "fixity": {},
    "download": {},
    "delete": {"reason": "Duplicate of another AIP", "pipeline": PIPELINE},
    "recover": {"reason": "The copy on disk is damaged", "pipeline": PIPELINE},
    "reingest": {"pipeline": PIPELINE, "reingest_type": "full", "processing_config": "automated"},
    "move": {"location": AIP_STORE_2},
}


def _url(name: str, uuid: str = AIP) -> str:
    return reverse(f"dashboard:storage-package-{name}", args=[uuid])


def _key(client: Client, name: str, uuid: str = AIP) -> str:
    page = client.get(_url(name, uuid)).content.decode()
    return re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)


def _submit(client: Client, name: str, uuid: str = AIP, key: str | None = None, **fields):
    data = {**VALID_FIELDS[name], **fields, "idempotency_key": key or _key(client, name, uuid)}
    return client.post(_url(name, uuid), data)


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --------------------------------------------------------------------------- access


@pytest.mark.parametrize("name", OPERATIONS)
def test_anonymous_visitors_cannot_run_an_operation(client, polled, name):
    response = client.post(_url(name), {**VALID_FIELDS[name], "idempotency_key": "x" * 32})

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert not AuditEntry.objects.exists()


@pytest.mark.parametrize("name", OPERATIONS)
def test_a_viewer_may_not_run_an_operation(client, polled, viewer, name):
    client.force_login(viewer)

    assert client.get(_url(name)).status_code == 403
    response = client.post(_url(name), {**VALID_FIELDS[name], "idempotency_key": "x" * 32})

    assert response.status_code == 403
    assert not AuditEntry.objects.exists()
    assert not any(
        call[0]
        not in {
            "list_pipelines",
            "list_spaces",
            "list_locations",
            "list_packages",
            "list_packages_page",
        }
        for call in polled.calls
    )


@pytest.mark.parametrize("name", OPERATIONS)
def test_a_user_without_a_role_may_not_run_an_operation(client, polled, no_role, name):
    client.force_login(no_role)

    assert client.post(_url(name), {"idempotency_key": "x" * 32}).status_code == 403


@pytest.mark.parametrize("name", OPERATIONS)
def test_an_operation_needs_a_csrf_token(polled, operator, name):
    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)

    response = client.post(_url(name), {**VALID_FIELDS[name], "idempotency_key": "x" * 32})

    assert response.status_code == 403
    assert not AuditEntry.objects.exists()


@pytest.mark.parametrize("name", OPERATIONS)
def test_an_operation_asks_for_confirmation_first(client, polled, operator, name):
    client.force_login(operator)

    response = client.get(_url(name))

    body = response.content.decode()
    assert response.status_code == 200
    assert 'method="post"' in body and 'name="idempotency_key"' in body
    assert "csrfmiddlewaretoken" in body
    assert polled.count(_upstream_method(name)) == 0


@pytest.mark.parametrize("name", ["delete", "recover", "reingest", "move"])
def test_submitting_the_same_confirmation_twice_calls_the_storage_service_once(
    client, polled, operator, name
):
    client.force_login(operator)
    key = _key(client, name)

    _submit(client, name, key=key)
    second = _submit(client, name, key=key)

    assert polled.count(_upstream_method(name)) == 1
    assert AuditEntry.objects.filter(idempotency_key=key).count() == 1
    assert any("already submitted" in text for text in _messages(second))


@pytest.mark.parametrize("name", OPERATIONS)
def test_a_missing_confirmation_token_asks_again(client, polled, operator, name):
    client.force_login(operator)

    response = client.post(_url(name), VALID_FIELDS[name])

    assert response.status_code == 400
    assert 'name="idempotency_key"' in response.content.decode()
    assert polled.count(_upstream_method(name)) == 0


def _upstream_method(name: str) -> str:
    return {
        "fixity": "check_fixity",
        "download": "download_package",
        "delete": "request_deletion",
        "recover": "request_recovery",
        "reingest": "reingest",
        "move": "move_package",
    }[name]


# --------------------------------------------------------------------------- fixity


def test_a_fixity_check_is_queued_and_audited(
    client, polled, operator, queued, django_capture_on_commit_callbacks
):
    client.force_login(operator)

    with django_capture_on_commit_callbacks(execute=True):
        response = _submit(client, "fixity")

    assert response.status_code == 302
    check = FixityCheck.objects.get()
    assert str(check.package_uuid) == AIP and check.requested_by == "otto"
    assert ("dashboard.tasks.check_package_fixity", (check.pk,)) in queued
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.target, entry.actor_name) == ("package_fixity_check", AIP, "otto")


def test_the_fixity_task_stores_a_failed_check_with_its_failures(client, polled, operator):
    from dashboard.tasks import check_package_fixity

    polled.fixity[AIP] = FixityResult(
        success=False,
        message="Bag validation failed",
        failures=("missing: bag-info.txt: exists in manifest but was not found",),
        checked_at=None,
    )
    client.force_login(operator)
    _submit(client, "fixity")

    outcome = check_package_fixity.run(FixityCheck.objects.get().pk)

    check = FixityCheck.objects.get()
    assert outcome == "failed"
    assert check.success is False and check.checked_at is not None
    page = client.get(reverse("dashboard:storage-package-detail", args=[AIP])).content.decode()
    assert "Bag validation failed" in page and "bag-info.txt" in page


def test_a_fixity_check_the_service_could_not_start_is_kept_as_such(client, polled, operator):
    polled.fixity[AIP] = FixityResult(
        success=None,
        message="Unable to scan; package is not a bag (AIP or AIC)",
        failures=(),
        checked_at=None,
    )
    check = storage_services.fixity_check_create(package_uuid=AIP, requested_by="otto")

    storage_services.fixity_check_run(check_id=check.pk)

    check.refresh_from_db()
    assert check.success is None and check.checked_at is not None
    assert "not a bag" in check.message


def test_a_fixity_check_while_the_service_is_down_records_the_error(polled):
    polled.down = True
    check = storage_services.fixity_check_create(package_uuid=AIP, requested_by="otto")

    storage_services.fixity_check_run(check_id=check.pk)

    check.refresh_from_db()
    assert "could not connect" in check.error


def test_a_redelivered_fixity_task_does_not_check_twice(polled):
    check = storage_services.fixity_check_create(package_uuid=AIP, requested_by="otto")

    storage_services.fixity_check_run(check_id=check.pk)
    storage_services.fixity_check_run(check_id=check.pk)

    assert polled.count("check_fixity") == 1


def test_the_fixity_history_keeps_every_check(client, polled, operator):
    for _ in range(3):
        check = storage_services.fixity_check_create(package_uuid=AIP, requested_by="otto")
        storage_services.fixity_check_run(check_id=check.pk)
    client.force_login(operator)

    page = client.get(reverse("dashboard:storage-package-detail", args=[AIP])).content.decode()

    assert page.count("Passed") == 3


# --------------------------------------------------------------------------- download


def test_a_download_is_streamed_with_the_services_headers(client, polled, operator):
    polled.download_bytes = 5 * 1024 * 1024 + 7
    client.force_login(operator)

    response = _submit(client, "download")

    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "application/x-7z-compressed"
    assert response["Content-Length"] == str(5 * 1024 * 1024 + 7)
    assert f'filename="{AIP}.7z"' in response["Content-Disposition"]
    assert sum(len(chunk) for chunk in response.streaming_content) == 5 * 1024 * 1024 + 7
    assert AuditEntry.objects.get().action == "package_download"


def test_a_package_not_available_locally_gets_a_clear_message(client, polled, operator):
    polled.not_local.add(AIP)
    client.force_login(operator)

    response = _submit(client, "download")

    assert response.status_code == 302
    assert any("not locally available" in text for text in _messages(response))
    entry = AuditEntry.objects.get()
    assert entry.outcome == AuditEntry.Outcome.REFUSED and entry.upstream_status == 202


def test_a_used_download_confirmation_does_not_download_again(client, polled, operator):
    client.force_login(operator)
    key = _key(client, "download")
    b"".join(_submit(client, "download", key=key).streaming_content)

    again = _submit(client, "download", key=key)

    assert again.status_code == 302
    assert polled.count("download_package") == 1


# --------------------------------------------------------------------------- requests


@pytest.mark.parametrize(
    ("name", "method", "status"),
    [
        ("delete", "request_deletion", "DEL_REQ"),
        ("recover", "request_recovery", "RECOVER_REQ"),
    ],
)
def test_a_request_sends_the_reason_and_the_lookout_users_id_and_email(
    client, polled, operator, name, method, status
):
    client.force_login(operator)

    response = _submit(client, name)

    assert response.status_code == 302
    _, args, kwargs = next(call for call in polled.calls if call[0] == method)
    assert args == (AIP,)
    assert kwargs == {
        "pipeline_uuid": PIPELINE,
        "reason": VALID_FIELDS[name]["reason"],
        "user_id": operator.pk,
        "user_email": "otto@example.org",
    }
    assert StoragePackage.objects.get(uuid=AIP).status == status
    entry = AuditEntry.objects.get()
    assert entry.outcome == AuditEntry.Outcome.DONE
    assert entry.parameters["reason"] == VALID_FIELDS[name]["reason"]
    assert entry.parameters["user_email"] == "otto@example.org"


@pytest.mark.parametrize("name", ["delete", "recover"])
def test_a_request_without_a_reason_is_refused_by_the_form(client, polled, operator, name):
    client.force_login(operator)

    response = _submit(client, name, reason="   ")

    assert response.status_code == 400
    assert "This field is required" in response.content.decode()
    assert not AuditEntry.objects.exists()


def test_a_request_can_name_another_pipeline(client, polled, operator):
    client.force_login(operator)

    _submit(client, "delete", pipeline=PEER_PIPELINE)

    _, _, kwargs = next(call for call in polled.calls if call[0] == "request_deletion")
    assert kwargs["pipeline_uuid"] == PEER_PIPELINE


def test_a_user_without_an_email_address_is_told_why_nothing_was_sent(client, polled, operator):
    operator.email = ""
    operator.save()
    client.force_login(operator)

    response = _submit(client, "delete")

    assert polled.count("request_deletion") == 0
    assert any("no e-mail address" in text for text in _messages(response))
    assert AuditEntry.objects.get().outcome == AuditEntry.Outcome.REFUSED


def test_a_refusal_by_the_storage_service_is_shown_in_its_own_words(client, polled, operator):
    polled.failures["request_recovery"] = StorageResponseError(
        "405",
        service="storage",
        status=405,
        upstream_message="Recovery not allowed on this package type.",
    )
    client.force_login(operator)

    response = _submit(client, "recover")

    assert any("Recovery not allowed on this package type." in t for t in _messages(response))
    entry = AuditEntry.objects.get()
    assert entry.outcome == AuditEntry.Outcome.REFUSED and entry.upstream_status == 405


def test_an_unreachable_storage_service_is_reported_as_a_failure(client, polled, operator):
    polled.failures["request_deletion"] = StorageUnavailable("timed out", service="storage")
    client.force_login(operator)

    response = _submit(client, "delete")

    assert any("could not be reached" in t for t in _messages(response))
    assert AuditEntry.objects.get().outcome == AuditEntry.Outcome.FAILED


# --------------------------------------------------------------------------- reingest


def test_a_reingest_sends_type_and_processing_configuration(client, polled, operator):
    client.force_login(operator)

    response = _submit(client, "reingest")

    _, args, kwargs = next(call for call in polled.calls if call[0] == "reingest")
    assert args == (AIP,)
    assert kwargs == {
        "pipeline_uuid": PIPELINE,
        "reingest_type": "full",
        "processing_config": "automated",
    }
    assert any("sent to pipeline" in t for t in _messages(response))


def test_a_partial_reingest_sends_no_processing_configuration(client, polled, operator):
    client.force_login(operator)

    _submit(client, "reingest", reingest_type="metadata")

    _, _, kwargs = next(call for call in polled.calls if call[0] == "reingest")
    assert kwargs["reingest_type"] == "metadata" and kwargs["processing_config"] is None


def test_an_unknown_reingest_type_is_refused_by_the_form(client, polled, operator):
    client.force_login(operator)

    response = _submit(client, "reingest", reingest_type="EVERYTHING")

    assert response.status_code == 400
    assert polled.count("reingest") == 0


def test_a_viewer_with_only_the_deletion_permission_cannot_reingest(client, polled, viewer):
    from django.contrib.auth.models import Permission

    viewer.user_permissions.add(Permission.objects.get(codename="request_package_deletion"))
    client.force_login(viewer)

    assert client.post(_url("reingest"), VALID_FIELDS["reingest"]).status_code == 403
    assert client.get(_url("delete")).status_code == 200


# --------------------------------------------------------------------------- move


def test_a_move_offers_only_enabled_locations_with_the_same_purpose(client, polled, operator):
    client.force_login(operator)

    page = client.get(_url("move")).content.decode()

    assert f'value="{AIP_STORE_2}"' in page
    assert f'value="{AIP_STORE}"' not in page  # where it is now
    assert f'value="{DIP_STORE}"' not in page


def test_a_move_to_a_location_with_another_purpose_is_refused_before_any_call(
    client, polled, operator
):
    client.force_login(operator)

    response = _submit(client, "move", location=DIP_STORE)

    assert response.status_code == 400
    assert polled.count("move_package") == 0


def test_a_move_says_moving_while_it_runs_and_moved_once_done(client, polled, operator):
    client.force_login(operator)
    detail = reverse("dashboard:storage-package-detail", args=[AIP])

    response = _submit(client, "move")

    assert response.status_code == 302
    assert any("Moving to Second AIP store" in t for t in _messages(response))
    assert not any("Moved to" in t for t in _messages(response))
    package = StoragePackage.objects.get(uuid=AIP)
    assert (package.status, package.current_location_uuid) == ("MOVING", AIP_STORE)
    moving = client.get(detail).content.decode()
    assert "Moving to Second AIP store" in moving and "Moved to" not in moving

    polled.finish_moves()
    storage_services.storage_poll()

    assert StoragePackage.objects.get(uuid=AIP).current_location_uuid == AIP_STORE_2
    moved = client.get(detail).content.decode()
    assert "Moved to Second AIP store" in moved and "Moving to" not in moved


def test_after_an_operation_a_storage_poll_is_queued(
    client, polled, operator, queued, django_capture_on_commit_callbacks
):
    client.force_login(operator)

    with django_capture_on_commit_callbacks(execute=True):
        _submit(client, "move")

    assert ("dashboard.tasks.poll_storage", ()) in queued


def test_an_operation_that_does_not_fit_the_package_says_why(client, polled, operator):
    client.force_login(operator)
    transfer = package_uuid(4)

    response = client.get(_url("reingest", transfer))

    assert response.status_code == 302
    assert any("Only AIPs and AICs can be reingested" in t for t in _messages(response))


# --------------------------------------------------------------------------- what is offered


def _row(package_type: str = "AIP", status: str = "UPLOADED", **fields) -> StoragePackage:
    return StoragePackage(
        uuid=package_uuid(90),
        package_type=package_type,
        status=status,
        misc_attributes=fields.pop("misc_attributes", {}),
        **fields,
    )


@pytest.mark.parametrize(
    ("package", "name", "reason"),
    [
        (_row("DIP"), "delete", "deletes AIPs, AICs and transfers only"),
        (_row("transfer"), "recover", "Only AIPs and AICs can be recovered"),
        (_row("DIP"), "recover", "Only AIPs and AICs can be recovered"),
        (_row("transfer"), "reingest", "Only AIPs and AICs can be reingested"),
        (_row("AIC", "DEL_REQ"), "reingest", "Only an uploaded package can be reingested"),
        (
            _row(misc_attributes={"reingest_pipeline": PIPELINE}),
            "reingest",
            "A reingest on",
        ),
        (_row(status="DELETED"), "fixity", "The package is deleted"),
        (_row(status="DELETED"), "download", "The package is deleted"),
        (_row("transfer", "DELETED"), "download", "The package is deleted"),
    ],
)
def test_operations_the_storage_service_refuses_are_not_offered(package, name, reason):
    offered = storage_selectors.package_operation_get(package=package, name=name)

    assert offered is not None and not offered.available
    assert reason in offered.reason


@pytest.mark.parametrize(
    ("package", "name"),
    [
        (_row("AIP"), "delete"),
        (_row("AIC"), "delete"),
        (_row("transfer"), "delete"),
        (_row("AIP"), "recover"),
        (_row("AIC"), "recover"),
        (_row("AIC"), "reingest"),
        (_row(misc_attributes={"reingest_pipeline": None}), "reingest"),
        (_row("transfer"), "download"),
    ],
)
def test_operations_the_storage_service_accepts_are_offered(package, name):
    assert storage_selectors.package_operation_get(package=package, name=name).available


def test_the_package_page_says_why_an_operation_is_not_offered(client, polled, operator):
    client.force_login(operator)
    dip = package_uuid(2)

    page = client.get(reverse("dashboard:storage-package-detail", args=[dip])).content.decode()

    assert "The storage service deletes AIPs, AICs and transfers only." in page
    assert _url("delete", dip) not in page
    assert _url("download", dip) in page


@pytest.fixture
def deleted(polled) -> str:
    """An AIP the storage service has deleted, polled into Lookout."""
    from tests.storage.fakes import make_package

    polled.add(make_package(6, status="DELETED", name="posters-006"))
    storage_services.storage_poll()
    return package_uuid(6)


@pytest.mark.parametrize(
    ("number", "name"),
    [
        (2, "delete"),  # a DIP
        (4, "recover"),  # a transfer
        (4, "reingest"),
        (5, "move"),  # deletion requested
        (6, "download"),  # deleted
        (6, "fixity"),
    ],
)
def test_a_crafted_post_for_an_operation_not_offered_is_refused_and_audited(
    client, polled, deleted, operator, number, name
):
    client.force_login(operator)
    target = package_uuid(number)
    data = {**VALID_FIELDS[name], "idempotency_key": "crafted-" + "k" * 24}

    response = client.post(_url(name, target), data)
    again = client.post(_url(name, target), data)

    assert response.status_code == 302
    assert polled.count(_upstream_method(name)) == 0
    assert not FixityCheck.objects.exists()
    entry = AuditEntry.objects.get()
    reason = storage_selectors.package_operation_get(
        package=StoragePackage.objects.get(uuid=target), name=name
    ).reason
    assert (entry.outcome, entry.target) == (AuditEntry.Outcome.REFUSED, target)
    assert entry.upstream_message.endswith(reason)
    assert any(reason in text for text in _messages(response))
    assert any("already submitted" in text for text in _messages(again))


def test_a_crafted_post_without_a_confirmation_is_refused_and_audited_too(client, polled, operator):
    client.force_login(operator)

    response = client.post(_url("delete", package_uuid(2)), VALID_FIELDS["delete"])

    assert response.status_code == 302
    assert polled.count("request_deletion") == 0
    assert AuditEntry.objects.get().outcome == AuditEntry.Outcome.REFUSED


def test_the_services_check_too_whoever_calls_them(polled, operator):
    dip = StoragePackage.objects.get(uuid=package_uuid(2))

    result = package_actions.package_request(
        kind="deletion",
        user=operator,
        package=dip,
        pipeline_uuid=PIPELINE,
        reason="Superseded",
        idempotency_key="direct-" + "k" * 24,
    )

    assert result.entry.outcome == AuditEntry.Outcome.REFUSED
    assert "deletes AIPs, AICs and transfers only" in result.message
    assert polled.count("request_deletion") == 0


def test_a_deleted_package_has_no_pointer_file_to_fetch(polled, deleted):
    details = storage_services.package_details_refresh(uuid=deleted)

    assert polled.count("get_pointer_file") == 0
    assert details["pointer"] is None and "deleted" in details["pointer_error"]
