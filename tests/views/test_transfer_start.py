"""The start-transfer wizard: steps, validation, one transfer per confirmation, audit."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from dashboard.clients.workflow import WorkflowNotFound, WorkflowResponseError
from dashboard.forms.storage import encode_browse_path
from dashboard.models import AuditEntry, Unit
from dashboard.services import storage as storage_services
from dashboard.services import transfers
from tests.fakes import FakeWorkflowClient, uuid_for
from tests.storage.fakes import TRANSFER_SOURCE, FakeStorageClient, browse_listing

pytestmark = pytest.mark.django_db
START = "/transfers/start/"
BROWSE = "/transfers/start/browse/"
DETAILS = "/transfers/start/details/"
SUBMIT = "/transfers/start/submit/"
KEY = "k" * 32
NAME = 'Minutes “1962” l\'été "quoted" 日本'


@pytest.fixture
def storage(monkeypatch) -> FakeStorageClient:
    client = FakeStorageClient.seeded()
    client.listings[TRANSFER_SOURCE] = {
        b"": browse_listing(
            {
                "board minutes 1962": {"object count": 3},
                "été": {"object count": 1},
                "a.txt": {"size": 1},
            }
        ),
    }
    monkeypatch.setattr(storage_services, "get_storage_client", lambda: client)
    storage_services.storage_poll()
    return client


@pytest.fixture
def workflow(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    monkeypatch.setattr(transfers, "get_workflow_client", lambda config: client)
    return client


@pytest.fixture
def queued(monkeypatch) -> list[tuple]:
    sent: list[tuple] = []
    monkeypatch.setattr(
        "dashboard.tasks.location_listing_enqueue", lambda *args: sent.append(args) or True
    )
    return sent


def _fields(**overrides) -> dict:
    fields = {
        "pipeline": "default",
        "location": TRANSFER_SOURCE,
        "picks": [encode_browse_path(b"board minutes 1962")],
        "name": NAME,
        "transfer_type": "standard",
        "accession": "2024-17",
        "processing_config": "automated",
        "auto_approve": "on",
    }
    fields.update(overrides)
    return fields


def _submit_fields(**overrides) -> dict:
    fields = _fields(**overrides)
    fields.setdefault("idempotency_key", KEY)
    if fields.get("auto_approve") == "on":
        fields["auto_approve"] = "True"
    return fields


def test_anonymous_users_go_to_the_login_page(client):
    assert client.get(START)["Location"].startswith("/accounts/login/")


def test_a_viewer_may_not_start_a_transfer(viewer, storage, workflow):
    assert viewer.get(START).status_code == 403
    assert viewer.post(SUBMIT, _submit_fields()).status_code == 403
    assert workflow.calls == []


def test_the_overview_and_units_pages_offer_it_to_operators_only(operator, viewer, storage):
    assert "Start transfer" in operator.get("/").content.decode()
    assert "Start transfer" in operator.get("/units/").content.decode()
    assert "Start transfer" not in viewer.get("/units/").content.decode()


def test_step_one_lists_the_transfer_sources_and_leads_to_the_browser(operator, storage):
    page = operator.get(START).content.decode()
    assert TRANSFER_SOURCE in page
    key = re.search(r'name="key" value="([^"]+)"', page).group(1)

    response = operator.get(START, {"pipeline": "default", "location": TRANSFER_SOURCE, "key": key})

    assert response.status_code == 302
    query = parse_qs(urlsplit(response["Location"]).query)
    assert query["location"] == [TRANSFER_SOURCE] and query["key"] == [key]


def test_the_folder_browser_waits_for_the_listing_task_and_never_calls_storage(
    operator, storage, queued
):
    calls_before = len(storage.calls)

    page = operator.get(BROWSE, {"pipeline": "default", "location": TRANSFER_SOURCE, "key": KEY})

    assert "Loading…" in page.content.decode()
    assert queued == [(TRANSFER_SOURCE, b"")]
    assert len(storage.calls) == calls_before


def test_the_folder_browser_shows_folders_to_pick_once_listed(operator, storage, queued):
    storage_services.location_listing_fetch(location_uuid=TRANSFER_SOURCE, client=storage)

    page = operator.get(
        BROWSE, {"pipeline": "default", "location": TRANSFER_SOURCE, "key": KEY}
    ).content.decode()

    assert 'name="picks"' in page
    assert "board minutes 1962" in page and "été" in page
    assert "a.txt" not in page  # files are not transfers here
    assert f'value="{encode_browse_path("été".encode())}"' in page


def test_step_two_prefills_the_name_from_the_folder(operator, storage):
    pick = encode_browse_path(b"board minutes 1962")
    page = operator.get(
        DETAILS, {"pipeline": "default", "location": TRANSFER_SOURCE, "picks": pick, "key": KEY}
    ).content.decode()

    assert 'value="board minutes 1962"' in page
    assert '<option value="automated">automated</option>' in page
    assert 'value="zipped bag"' in page


def test_step_two_without_a_folder_goes_back_to_the_browser(operator, storage):
    response = operator.get(DETAILS, {"pipeline": "default", "location": TRANSFER_SOURCE})
    assert response.status_code == 302
    assert response["Location"].startswith(BROWSE)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("   ", "Transfer name: This field is required."),
        ("a/b", "cannot contain a slash"),
        ("tab\there", "cannot contain control characters"),
        ("é" * 110, "at most 218 bytes"),
    ],
)
def test_a_name_the_service_would_refuse_is_caught_with_the_field_named(
    operator, storage, workflow, name, words
):
    response = operator.post(DETAILS, {**_fields(name=name), "key": KEY})

    assert response.status_code == 400
    assert words in response.content.decode()
    assert workflow.calls == []


def test_a_path_outside_the_location_is_refused(operator, storage, workflow):
    bad = encode_browse_path(b"../etc")
    response = operator.post(DETAILS, {**_fields(picks=[bad]), "key": KEY})

    assert response.status_code == 400
    assert "A path may not go up a directory." in response.content.decode()


def test_step_three_summarises_and_carries_the_wizards_key(operator, storage):
    page = operator.post(DETAILS, {**_fields(), "key": KEY}).content.decode()

    assert "Start transfer: confirm" in page
    assert f'name="idempotency_key" value="{KEY}"' in page
    assert "Minutes “1962” l&#x27;été &quot;quoted&quot; 日本" in page
    assert "board minutes 1962" in page


def test_submitting_starts_one_transfer_registers_it_and_lands_on_its_page(
    operator, storage, workflow, django_capture_on_commit_callbacks, _no_poll_enqueued
):
    with django_capture_on_commit_callbacks(execute=True):
        response = operator.post(SUBMIT, _submit_fields())

    new = uuid_for(901)
    assert response.status_code == 302
    assert response["Location"] == f"/units/{new}/"
    (call,) = workflow.calls
    assert call == (
        "create_package",
        (NAME, TRANSFER_SOURCE, b"board minutes 1962", "standard", "automated", "2024-17", True),
    )
    unit = Unit.objects.get(uuid=new)
    assert (unit.name, unit.kind, unit.pipeline) == (NAME, "transfer", "default")
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome, entry.target_label) == ("transfer_start", "done", NAME)
    assert new in entry.upstream_message
    assert entry.parameters["paths"] == ["board minutes 1962"]
    assert _no_poll_enqueued == ["default"]
    page = operator.get(response["Location"]).content.decode()
    assert "Transfer started" in page


def test_a_double_submit_or_a_resubmitted_summary_starts_one_transfer(operator, storage, workflow):
    first = operator.post(SUBMIT, _submit_fields())
    second = operator.post(SUBMIT, _submit_fields())

    assert workflow.count("create_package") == 1
    assert AuditEntry.objects.count() == 1
    assert second["Location"] == first["Location"]
    page = operator.get(second["Location"]).content.decode()
    assert "already submitted; nothing was sent again" in page


def test_the_same_key_for_other_folders_asks_again(operator, storage, workflow):
    operator.post(SUBMIT, _submit_fields())
    other = operator.post(SUBMIT, _submit_fields(picks=[encode_browse_path("été".encode())]))

    assert other.status_code == 400
    assert "used for other folders" in other.content.decode()
    assert workflow.count("create_package") == 1


@pytest.mark.parametrize(
    "error",
    [
        WorkflowNotFound("not found", service="workflow", status=404),
        WorkflowResponseError(
            "bad",
            service="workflow",
            status=400,
            upstream_message="Unable to determine the status of the unit",
        ),
    ],
)
def test_without_the_package_endpoint_it_starts_and_approves(operator, storage, workflow, error):
    workflow.package_error = error

    response = operator.post(SUBMIT, _submit_fields())

    assert [name for name, _ in workflow.calls] == [
        "create_package",
        "start_transfer",
        "approve_transfer",
    ]
    new = uuid_for(901)
    assert response["Location"] == f"/units/{new}/"
    entry = AuditEntry.objects.get()
    assert entry.outcome == "done" and "start_transfer" in entry.upstream_message
    assert Unit.objects.filter(uuid=new).exists()


def test_several_folders_go_into_one_transfer_through_start_transfer(operator, storage, workflow):
    picks = [encode_browse_path(b"board minutes 1962"), encode_browse_path("été".encode())]

    operator.post(SUBMIT, _submit_fields(picks=picks))

    (_, args) = workflow.calls[0]
    assert workflow.calls[0][0] == "start_transfer"
    assert args[3] == ((TRANSFER_SOURCE, b"board minutes 1962"), (TRANSFER_SOURCE, "été".encode()))


def test_a_refusal_is_shown_in_the_services_words_and_keeps_the_entries(
    operator, storage, workflow
):
    workflow.package_error = WorkflowResponseError(
        "500", service="workflow", status=500, upstream_message="Package cannot be created"
    )

    response = operator.post(SUBMIT, _submit_fields())

    page = response.content.decode()
    assert response.status_code == 409
    assert "Package cannot be created" in page
    assert "Minutes “1962”" in page  # what was entered is still there
    assert f'value="{KEY}"' not in page  # a fresh key to try again
    assert AuditEntry.objects.get().outcome == "refused"


def test_an_unreachable_service_keeps_what_was_entered(operator, storage, workflow):
    workflow.down = True

    response = operator.post(SUBMIT, _submit_fields())

    page = response.content.decode()
    assert response.status_code == 502
    assert "could not be reached" in page
    assert "2024-17" in page
    assert AuditEntry.objects.get().outcome == "failed"


def test_a_missing_key_asks_to_confirm_again(operator, storage, workflow):
    response = operator.post(SUBMIT, _submit_fields(idempotency_key=""))

    assert response.status_code == 400
    assert "please confirm again" in response.content.decode()
    assert workflow.calls == []
