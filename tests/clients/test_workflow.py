"""The workflow service client against recorded-shape answers (HTTP mocked with `responses`)."""

from __future__ import annotations

import base64
import gzip
import json
import logging
from datetime import datetime
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests
from django.core.cache import cache
from responses import matchers

from dashboard.clients.workflow import (
    ApprovalResult,
    Job,
    JobStatus,
    Task,
    TaskSummary,
    TransferType,
    UnitKind,
    UnitStatusValue,
    WorkflowAuthError,
    WorkflowClient,
    WorkflowConfigError,
    WorkflowNotFound,
    WorkflowResponseError,
    WorkflowUnitPending,
    get_workflow_client,
)
from dashboard.lib.pipelines import pipeline_get
from dashboard.selectors.processing_configs import processing_config_names
from dashboard.services.processing_configs import processing_config_names_fetch
from tests.clients.conftest import KEY, WORKFLOW_URL

TRANSFER = "9b1a3e2c-1111-4aaa-8bbb-000000000001"
SIP = "4c2d5f6e-2222-4ccc-8ddd-000000000002"
LOCATION = "7e8f9a0b-3333-4eee-8fff-000000000003"
TASK = "1f2e3d4c-4444-4111-8222-000000000004"
LINK = "5a6b7c8d-5555-4333-8444-000000000005"


def transfer_status(**overrides):
    body = {
        "type": "transfer",
        "uuid": TRANSFER,
        "name": "photos",
        "directory": f"photos-{TRANSFER}",
        "path": f"/var/shared/completedTransfers/photos-{TRANSFER}/",
        "status": "PROCESSING",
        "microservice": "Assign file UUIDs",
        "message": f"Fetched status for {TRANSFER} successfully.",
    }
    body.update(overrides)
    return {key: value for key, value in body.items() if value is not None}


def status_url(uuid=TRANSFER):
    return f"{WORKFLOW_URL}/api/transfer/status/{uuid}/"


def form_fields(call):
    return parse_qsl(call.request.body, keep_blank_values=True)


# --- auth and error styles


def test_it_raises_auth_error_for_a_403_json_answer(mocked, workflow):
    mocked.get(status_url(), status=403, json={"message": "API key not valid.", "error": True})

    with pytest.raises(WorkflowAuthError) as caught:
        workflow.get_transfer_status(TRANSFER)

    assert caught.value.status == 403
    assert caught.value.upstream_message == "API key not valid."
    assert caught.value.service == "workflow"


def test_it_raises_not_found_for_error_true_answered_with_200(mocked, workflow):
    body = {
        "type": "transfer",
        "message": f"Cannot fetch unitTransfer with UUID {TRANSFER}",
        "error": True,
    }
    mocked.get(status_url(), status=200, json=body)

    with pytest.raises(WorkflowNotFound):
        workflow.get_transfer_status(TRANSFER)


def test_it_raises_response_error_for_any_other_error_true_with_200(mocked, workflow):
    mocked.get(status_url(), status=200, json={"error": True, "message": "Something odd."})

    with pytest.raises(WorkflowResponseError, match="Something odd."):
        workflow.get_transfer_status(TRANSFER)


def test_it_raises_unit_pending_while_the_unit_has_no_jobs(mocked, workflow):
    body = {"error": True, "message": f"Unable to determine the status of the unit {TRANSFER}"}
    mocked.get(status_url(), status=400, json=body)

    with pytest.raises(WorkflowUnitPending) as caught:
        workflow.get_transfer_status(TRANSFER)

    assert caught.value.status == 400


def test_it_raises_not_found_for_cannot_fetch_400(mocked, workflow):
    body = {"type": "SIP", "message": f"Cannot fetch unitSIP with UUID {SIP}", "error": True}
    mocked.get(f"{WORKFLOW_URL}/api/ingest/status/{SIP}/", status=400, json=body)

    with pytest.raises(WorkflowNotFound):
        workflow.get_ingest_status(SIP)


def test_it_raises_not_found_for_a_gzip_encoded_html_404_page(mocked, workflow):
    page = gzip.compress(b"<!DOCTYPE html><html><body><h1>Page not found</h1></body></html>")
    mocked.get(
        status_url(),
        status=404,
        body=page,
        content_type="text/html; charset=utf-8",
        headers={"Content-Encoding": "gzip"},
    )

    with pytest.raises(WorkflowNotFound) as caught:
        workflow.get_transfer_status(TRANSFER)

    assert caught.value.upstream_message is None
    assert "Page not found" in caught.value.body


def test_it_rejects_a_unit_uuid_that_is_not_a_uuid(mocked, workflow):
    with pytest.raises(ValueError):
        workflow.get_transfer_status("../../admin")
    assert len(mocked.calls) == 0


# --- unit status quirks


def test_it_parses_a_processing_transfer(mocked, workflow):
    mocked.get(status_url(), json=transfer_status())

    status = workflow.get_transfer_status(TRANSFER.upper())

    assert status.uuid == TRANSFER
    assert status.kind is UnitKind.TRANSFER
    assert status.status is UnitStatusValue.PROCESSING
    assert status.microservice == "Assign file UUIDs"
    assert status.name == "photos"
    assert status.is_finished is False


def test_it_reads_the_microservices_spelling(mocked, workflow):
    body = transfer_status(
        type="SIP", uuid=SIP, microservice=None, microservices="Normalize for preservation"
    )
    mocked.get(f"{WORKFLOW_URL}/api/ingest/status/{SIP}/", json=body)

    status = workflow.get_ingest_status(SIP)

    assert status.microservice == "Normalize for preservation"
    assert status.kind is UnitKind.SIP


def test_a_complete_transfer_without_sip_uuid_is_still_pending(mocked, workflow):
    mocked.get(status_url(), json=transfer_status(status="COMPLETE"))

    status = workflow.get_transfer_status(TRANSFER)

    assert status.sip_uuid is None
    assert status.awaiting_sip_uuid is True
    assert status.is_finished is False


def test_a_transfer_sent_to_backlog_is_finished_without_a_sip(mocked, workflow):
    mocked.get(status_url(), json=transfer_status(status="COMPLETE", sip_uuid="BACKLOG"))

    status = workflow.get_transfer_status(TRANSFER)

    assert status.sent_to_backlog is True
    assert status.sip_uuid is None
    assert status.awaiting_sip_uuid is False
    assert status.is_finished is True


def test_a_complete_transfer_names_its_sip(mocked, workflow):
    mocked.get(status_url(), json=transfer_status(status="COMPLETE", sip_uuid=SIP))

    status = workflow.get_transfer_status(TRANSFER)

    assert status.sip_uuid == SIP
    assert status.is_finished is True


def test_a_sip_uuid_that_is_not_a_uuid_is_ignored(mocked, workflow):
    mocked.get(status_url(), json=transfer_status(status="COMPLETE", sip_uuid="None"))

    status = workflow.get_transfer_status(TRANSFER)

    assert status.sip_uuid is None
    assert status.awaiting_sip_uuid is True


@pytest.mark.parametrize("value", ["FAILED", "REJECTED"])
def test_failed_and_rejected_units_are_finished(mocked, workflow, value):
    mocked.get(status_url(), json=transfer_status(status=value))

    assert workflow.get_transfer_status(TRANSFER).is_finished is True


def test_an_unknown_unit_status_is_a_response_error(mocked, workflow):
    mocked.get(status_url(), json=transfer_status(status="DANCING"))

    with pytest.raises(WorkflowResponseError, match="DANCING"):
        workflow.get_transfer_status(TRANSFER)


# --- lists


def test_it_skips_a_malformed_list_item_and_logs_it(mocked, workflow, caplog):
    results = [
        {"type": "standard", "directory": "t1", "uuid": TRANSFER},
        {"type": "standard", "directory": "broken", "uuid": "not-a-uuid"},
        "nonsense",
        {"type": "zipped bag", "directory": "t2.zip", "uuid": SIP},
    ]
    mocked.get(
        f"{WORKFLOW_URL}/api/transfer/unapproved/", json={"message": "ok", "results": results}
    )

    with caplog.at_level(logging.WARNING):
        transfers = workflow.list_unapproved_transfers()

    assert [t.directory for t in transfers] == ["t1", "t2.zip"]
    assert transfers[1].transfer_type == "zipped bag"
    skipped = [r for r in caplog.records if "skipped malformed item" in r.getMessage()]
    assert len(skipped) == 2
    assert "/api/transfer/unapproved/" in skipped[0].getMessage()


@pytest.mark.parametrize("body", [[], {"message": "ok"}, {"results": {"uuid": TRANSFER}}])
def test_a_malformed_list_body_raises_response_error(mocked, workflow, body):
    mocked.get(f"{WORKFLOW_URL}/api/transfer/unapproved/", json=body)

    with pytest.raises(WorkflowResponseError):
        workflow.list_unapproved_transfers()


def test_waiting_keeps_a_unit_listed_twice(mocked, workflow):
    entry = {
        "sip_directory": "photos",
        "sip_uuid": SIP,
        "sip_name": "photos",
        "microservice": "Normalize",
    }
    second = {**entry, "microservice": "Approve normalization"}
    mocked.get(
        f"{WORKFLOW_URL}/api/ingest/waiting/", json={"message": "ok", "results": [entry, second]}
    )

    waiting = workflow.list_waiting()

    assert [unit.uuid for unit in waiting] == [SIP, SIP]
    assert [unit.microservice for unit in waiting] == ["Normalize", "Approve normalization"]


def test_completed_lists_are_bare_uuids(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/transfer/completed/", json={"message": "ok", "results": [TRANSFER]}
    )
    mocked.get(
        f"{WORKFLOW_URL}/api/ingest/completed/", json={"message": "ok", "results": [SIP, 42]}
    )

    assert workflow.list_completed_transfers() == (TRANSFER,)
    assert workflow.list_completed_ingests() == (SIP,)


# --- transfer actions


def test_approve_sends_the_directory_and_type_as_a_form(mocked, workflow):
    mocked.post(
        f"{WORKFLOW_URL}/api/transfer/approve/",
        json={"message": "Approval successful.", "uuid": TRANSFER},
    )

    result = workflow.approve_transfer(directory="photos", transfer_type=TransferType.ZIPPED_BAG)

    assert result == ApprovalResult(uuid=TRANSFER)
    assert dict(form_fields(mocked.calls[0])) == {"type": "zipped bag", "directory": "photos"}


def test_a_refused_approval_carries_the_upstream_message(mocked, workflow):
    mocked.post(
        f"{WORKFLOW_URL}/api/transfer/approve/",
        status=500,
        json={"message": "Unable to start the transfer.", "error": True},
    )

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.approve_transfer(directory="gone")

    assert caught.value.status == 500
    assert caught.value.upstream_message == "Unable to start the transfer."


def test_start_transfer_encodes_paths_and_pairs_them_with_row_ids(mocked, workflow):
    path = f"/var/shared/activeTransfers/standardTransfer/photos-{TRANSFER}/"
    mocked.post(
        f"{WORKFLOW_URL}/api/transfer/start_transfer/",
        json={"message": "Copy successful.", "path": path},
    )

    result = workflow.start_transfer(
        name="photos", accession="A-1", paths=[(LOCATION, "photos"), (LOCATION, "dir with space/é")]
    )

    fields = form_fields(mocked.calls[0])
    encoded = [value for name, value in fields if name == "paths[]"]
    assert [base64.b64decode(value).decode() for value in encoded] == [
        f"{LOCATION}:photos",
        f"{LOCATION}:dir with space/é",
    ]
    assert [value for name, value in fields if name == "row_ids[]"] == ["", ""]
    assert (
        ("name", "photos") in fields
        and ("type", "standard") in fields
        and ("accession", "A-1") in fields
    )
    assert mocked.calls[0].request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert result.path == path
    assert result.transfer_uuid == TRANSFER


def test_start_transfer_has_no_uuid_while_the_directory_has_no_suffix(mocked, workflow):
    path = "/var/shared/activeTransfers/standardTransfer/photos_1/"
    mocked.post(
        f"{WORKFLOW_URL}/api/transfer/start_transfer/",
        json={"message": "Copy successful.", "path": path},
    )

    result = workflow.start_transfer(name="photos", paths=[(LOCATION, "photos")])

    assert result.transfer_uuid is None
    assert result.path.endswith("photos_1/")


def test_create_package_posts_json_and_returns_the_transfer_uuid(mocked, workflow):
    mocked.post(f"{WORKFLOW_URL}/api/v2beta/package/", status=202, json={"id": TRANSFER})

    transfer_uuid = workflow.create_package(
        name="photos", location_uuid=LOCATION, path="photos", processing_config="automated"
    )

    body = json.loads(mocked.calls[0].request.body)
    assert transfer_uuid == TRANSFER
    assert base64.b64decode(body["path"]).decode() == f"{LOCATION}:photos"
    assert body["auto_approve"] is True
    assert body["processing_config"] == "automated"
    assert body["type"] == "standard"
    assert "accession" not in body


def test_hiding_a_finished_transfer_returns_true(mocked, workflow):
    mocked.delete(f"{WORKFLOW_URL}/api/transfer/{TRANSFER}/delete/", json={"removed": True})

    assert workflow.hide_transfer(TRANSFER) is True


def test_hiding_a_running_sip_returns_false_on_409(mocked, workflow):
    mocked.delete(f"{WORKFLOW_URL}/api/ingest/{SIP}/delete/", status=409, json={"removed": False})

    assert workflow.hide_ingest(SIP) is False


def test_reingest_accepts_the_storage_style_receipt(mocked, workflow):
    receipt = {
        "error": False,
        "message": "Approval successful.",
        "reingest_uuid": SIP,
        "status_code": 202,
    }
    mocked.post(f"{WORKFLOW_URL}/api/ingest/reingest/", json=receipt)
    mocked.post(
        f"{WORKFLOW_URL}/api/transfer/reingest/", json={"message": "ok", "reingest_uuid": TRANSFER}
    )

    assert workflow.reingest_ingest(name="aip-1", uuid=SIP).reingest_uuid == SIP
    assert workflow.reingest_transfer(name="aip-1", uuid=SIP).reingest_uuid == TRANSFER
    assert dict(form_fields(mocked.calls[0])) == {"name": "aip-1", "uuid": SIP}


def test_approving_a_partial_reingest_posts_the_uuid_and_returns_the_message(mocked, workflow):
    mocked.post(
        f"{WORKFLOW_URL}/api/ingest/reingest/approve/", json={"message": "Approval successful."}
    )

    assert workflow.approve_partial_reingest(SIP) == "Approval successful."
    assert dict(form_fields(mocked.calls[0])) == {"uuid": SIP}


def test_a_refused_partial_reingest_approval_keeps_the_services_words(mocked, workflow):
    mocked.post(
        f"{WORKFLOW_URL}/api/ingest/reingest/approve/",
        status=400,
        json={"error": True, "message": "Unable to approve the partial reingest."},
    )

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.approve_partial_reingest(SIP)

    assert caught.value.upstream_message == "Unable to approve the partial reingest."


def test_copy_metadata_files_returns_the_message_of_a_201(mocked, workflow):
    mocked.post(
        f"{WORKFLOW_URL}/api/ingest/copy_metadata_files/",
        status=201,
        json={"error": False, "message": "Metadata files added successfully."},
    )

    message = workflow.copy_metadata_files(sip_uuid=SIP, source_paths=[(LOCATION, "/meta/a.csv")])

    fields = form_fields(mocked.calls[0])
    assert message == "Metadata files added successfully."
    assert ("sip_uuid", SIP) in fields
    assert base64.b64decode(dict(fields)["source_paths[]"]).decode() == f"{LOCATION}:/meta/a.csv"


def test_copy_metadata_files_surfaces_a_location_refusal(mocked, workflow):
    message = f"Location {LOCATION} is not associated with this pipeline"
    mocked.post(
        f"{WORKFLOW_URL}/api/ingest/copy_metadata_files/",
        status=500,
        json={"error": True, "message": message},
    )

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.copy_metadata_files(sip_uuid=SIP, source_paths=[(LOCATION, "/meta/a.csv")])

    assert caught.value.upstream_message == message


# --- jobs and tasks


def test_list_jobs_sends_filters_but_not_detailed_when_false(mocked, workflow):
    mocked.get(f"{WORKFLOW_URL}/api/v2beta/jobs/{SIP}/", json=[])

    workflow.list_jobs(SIP, microservice="Normalize", link_uuid=LINK, name="Normalize")

    query = parse_qs(urlsplit(mocked.calls[0].request.url).query)
    assert query == {"microservice": ["Normalize"], "link_uuid": [LINK], "name": ["Normalize"]}


def test_list_jobs_parses_summaries_and_unknown_statuses(mocked, workflow):
    jobs = [
        {
            "uuid": TRANSFER,
            "name": "Check transfer directory for objects",
            "status": "COMPLETE",
            "microservice": "Verify transfer compliance",
            "link_uuid": LINK,
            "tasks": [{"uuid": TASK, "exit_code": 179}],
        },
        {
            "uuid": SIP,
            "name": "Approve standard transfer",
            "status": None,
            "microservice": "Approve transfer",
            "link_uuid": None,
            "tasks": [],
        },
        {
            "uuid": LINK,
            "name": "Odd",
            "status": "HALTED",
            "microservice": "X",
            "link_uuid": LINK,
            "tasks": [],
        },
    ]
    mocked.get(f"{WORKFLOW_URL}/api/v2beta/jobs/{SIP}/", json=jobs)

    first, second, third = workflow.list_jobs(SIP)

    assert first.status is JobStatus.COMPLETE
    assert first.tasks == (TaskSummary(uuid=TASK, exit_code=179),)
    assert second.status is JobStatus.UNKNOWN and second.link_uuid is None and second.tasks == ()
    assert third.status is JobStatus.UNKNOWN


def test_detailed_jobs_carry_full_tasks(mocked, workflow):
    task = {
        "uuid": TASK,
        "exit_code": 0,
        "file_uuid": None,
        "file_name": "",
        "time_created": "2026-11-21T20:31:57",
        "time_started": "2026-11-21T20:31:57",
        "time_ended": "2026-11-21T20:31:58",
        "duration": "< 1",
    }
    job = {
        "uuid": TRANSFER,
        "name": "n",
        "status": "COMPLETE",
        "microservice": "m",
        "link_uuid": LINK,
        "tasks": [task],
    }
    mocked.get(
        f"{WORKFLOW_URL}/api/v2beta/jobs/{SIP}/",
        json=[job],
        match=[matchers.query_param_matcher({"detailed": "true"})],
    )

    (parsed,) = workflow.list_jobs(SIP, detailed=True)

    (full,) = parsed.tasks
    assert isinstance(parsed, Job) and isinstance(full, Task)
    assert full.duration_under_one_second is True
    assert full.duration_seconds == 0


def test_list_jobs_is_empty_when_the_unit_has_no_jobs(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/v2beta/jobs/{SIP}/",
        status=400,
        json={"error": True, "message": f"No jobs found for unit: {SIP}"},
    )

    assert workflow.list_jobs(SIP) == ()


def test_a_task_with_an_integer_duration_and_space_separated_times(mocked, workflow):
    body = {
        "uuid": TASK,
        "exit_code": "1",
        "file_uuid": SIP,
        "file_name": "a.tif",
        "time_created": "2026-11-21 20:31:57",
        "time_started": "2026-11-21 20:31:58",
        "time_ended": "2026-11-21 20:32:10",
        "duration": 12,
    }
    mocked.get(f"{WORKFLOW_URL}/api/v2beta/task/{TASK}/", json=body)

    task = workflow.get_task(TASK)

    assert task.duration_seconds == 12 and task.duration_under_one_second is False
    assert task.exit_code == 1
    assert task.file_uuid == SIP
    assert task.time_started == datetime(2026, 11, 21, 20, 31, 58)


def test_a_task_that_has_not_ended_has_no_duration(mocked, workflow):
    body = {
        "uuid": TASK,
        "exit_code": None,
        "file_uuid": None,
        "file_name": None,
        "time_created": "2026-11-21T20:31:57",
        "time_started": None,
        "time_ended": None,
        "duration": "",
    }
    mocked.get(f"{WORKFLOW_URL}/api/v2beta/task/{TASK}/", json=body)

    task = workflow.get_task(TASK)

    assert task.duration_seconds is None
    assert task.duration_under_one_second is False
    assert task.time_ended is None and task.file_uuid is None and task.file_name == ""


def test_an_unknown_task_is_not_found(mocked, workflow):
    body = {"error": True, "message": f"Task with UUID {TASK} does not exist"}
    mocked.get(f"{WORKFLOW_URL}/api/v2beta/task/{TASK}/", status=400, json=body)

    with pytest.raises(WorkflowNotFound):
        workflow.get_task(TASK)


# --- processing configuration

CONFIG_XML = f"""<?xml version="1.0" encoding="UTF-8"?>
<processingMCP>
  <preconfiguredChoices>
    <!-- Send to backlog? (é) -->
    <preconfiguredChoice>
      <appliesTo>{LINK}</appliesTo>
      <goToChain>{TASK}</goToChain>
    </preconfiguredChoice>
    <preconfiguredChoice>
      <appliesTo>{SIP}</appliesTo>
      <goToChain>0</goToChain>
    </preconfiguredChoice>
  </preconfiguredChoices>
</processingMCP>
"""


def test_it_asks_for_xml_and_parses_the_choices_with_their_labels(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/processing-configuration/default/",
        body=CONFIG_XML.encode("utf-8"),
        content_type="text/xml",
    )

    config = workflow.get_processing_configuration("default")

    assert "xml" in mocked.calls[0].request.headers["Accept"]
    assert config.name == "default"
    assert [(c.applies_to, c.go_to_chain, c.label) for c in config.choices] == [
        (LINK, TASK, "Send to backlog? (é)"),
        (SIP, "0", None),
    ]
    assert config.xml == CONFIG_XML


def test_a_415_for_the_processing_configuration_is_a_response_error(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/processing-configuration/default/",
        status=415,
        body=b"",
        content_type=None,
    )

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.get_processing_configuration("default")

    assert caught.value.status == 415


def test_an_unknown_processing_configuration_is_not_found(mocked, workflow):
    body = {"success": False, "error": 'No such processing config "nope".'}
    mocked.get(f"{WORKFLOW_URL}/api/processing-configuration/nope/", status=404, json=body)

    with pytest.raises(WorkflowNotFound) as caught:
        workflow.get_processing_configuration("nope")

    assert caught.value.upstream_message == 'No such processing config "nope".'


def test_a_processing_configuration_name_the_service_would_truncate_is_refused(workflow):
    with pytest.raises(ValueError):
        workflow.get_processing_configuration("my-config")


def test_a_processing_configuration_that_is_not_xml_is_a_response_error(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/processing-configuration/default/",
        body="<processingMCP>",
        content_type="text/xml",
    )

    with pytest.raises(WorkflowResponseError, match="not XML"):
        workflow.get_processing_configuration("default")


BOMB_XML = """<?xml version="1.0"?>
<!DOCTYPE processingMCP [
  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
]>
<processingMCP><preconfiguredChoices><!-- &b; --></preconfiguredChoices></processingMCP>
"""


def test_a_processing_configuration_declaring_entities_is_refused(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/processing-configuration/default/",
        body=BOMB_XML,
        content_type="text/xml",
    )

    with pytest.raises(WorkflowResponseError, match="refused"):
        workflow.get_processing_configuration("default")


def test_it_lists_processing_configuration_names(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/processing-configuration/",
        json={"processing_configurations": ["automated", "default"]},
    )

    assert workflow.list_processing_configurations() == ("automated", "default")


@pytest.mark.parametrize(
    "answer",
    [
        {"status": 404, "body": "<h1>Not Found</h1>", "content_type": "text/html"},
        {"body": requests.ConnectionError("refused")},
    ],
    ids=["an older service answers 404", "the service does not answer"],
)
def test_processing_configuration_names_fall_back_to_the_configured_ones(mocked, workflow, answer):
    cache.clear()
    mocked.get(f"{WORKFLOW_URL}/api/processing-configuration/", **answer)
    pipeline = pipeline_get("default")
    assert pipeline is not None

    stored = processing_config_names_fetch(pipeline="default", client=workflow)

    assert stored["names"] is None and stored["error"]
    assert processing_config_names(pipeline=pipeline) == pipeline.processing_configs


def test_processing_configuration_names_the_service_lists_replace_the_configured_ones(
    mocked, workflow
):
    cache.clear()
    mocked.get(
        f"{WORKFLOW_URL}/api/processing-configuration/",
        json={"processing_configurations": ["default", "nightly"]},
    )
    pipeline = pipeline_get("default")
    assert pipeline is not None

    processing_config_names_fetch(pipeline="default", client=workflow)

    assert processing_config_names(pipeline=pipeline) == ("default", "nightly")


# --- validation, metadata, levels


def test_validate_csv_sends_the_exact_content_type(mocked, workflow):
    mocked.post(f"{WORKFLOW_URL}/api/v2beta/validate/rights/", json={"valid": True})

    result = workflow.validate_csv("rights", "file,basis\né.tif,copyright\n")

    request = mocked.calls[0].request
    assert request.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert request.body.decode("utf-8") == "file,basis\né.tif,copyright\n"
    assert result.valid is True and result.reason is None


def test_an_invalid_csv_is_a_result_not_an_error(mocked, workflow):
    mocked.post(
        f"{WORKFLOW_URL}/api/v2beta/validate/media_manifest/",
        status=400,
        json={"valid": False, "reason": "Missing column: file"},
    )

    result = workflow.validate_csv("media_manifest", "x\n")

    assert result.valid is False
    assert result.reason == "Missing column: file"


def test_an_unknown_validator_is_not_found(mocked, workflow):
    body = {"error": True, "message": "Unknown validator. Accepted values: media_manifest,rights"}
    mocked.post(f"{WORKFLOW_URL}/api/v2beta/validate/nope/", status=404, json=body)

    with pytest.raises(WorkflowNotFound):
        workflow.validate_csv("nope", "x\n")


def test_levels_of_description_use_the_accessapp_path(mocked, workflow):
    levels = [{LINK: "Collection"}, {TASK: "File"}, {"a": "b", "c": "d"}]
    mocked.get(f"{WORKFLOW_URL}/api/administration/dips/accessapp/levels/", json=levels)
    mocked.get(f"{WORKFLOW_URL}/api/administration/dips/accessapp/fetch_levels/", json=levels[:1])

    assert [(lod.uuid, lod.name) for lod in workflow.list_levels_of_description()] == [
        (LINK, "Collection"),
        (TASK, "File"),
    ]
    assert len(workflow.fetch_levels_of_description()) == 1


def test_a_failed_levels_fetch_carries_the_error_text(mocked, workflow):
    body = {"success": False, "error": "Cannot reach the access system"}
    mocked.get(
        f"{WORKFLOW_URL}/api/administration/dips/accessapp/fetch_levels/", status=500, json=body
    )

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.fetch_levels_of_description()

    assert caught.value.upstream_message == "Cannot reach the access system"


def test_path_metadata_is_read_by_query_and_written_by_form(mocked, workflow):
    mocked.get(
        f"{WORKFLOW_URL}/api/filesystem/metadata/",
        json={"level_of_description": ""},
        match=[matchers.query_param_matcher({"path": "arrange/series 1"})],
    )
    mocked.post(f"{WORKFLOW_URL}/api/filesystem/metadata/", status=201, json={"success": True})

    metadata = workflow.get_path_metadata("arrange/series 1")
    workflow.update_path_metadata(path="arrange/series 1", level_of_description=LINK)

    assert metadata.level_of_description is None
    assert dict(form_fields(mocked.calls[1])) == {
        "path": "arrange/series 1",
        "level_of_description": LINK,
    }


# --- factory


def test_the_factory_builds_the_default_pipeline_client_from_settings(settings):
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "main",
            "name": "Main",
            "url": "http://main.test:8001/",
            "user": "u",
            "key": "main-key",
        },
        {
            "slug": "other",
            "name": "Other",
            "url": "http://other.test",
            "user": "o",
            "key": "other-key",
        },
    ]
    settings.LOOKOUT_HTTP_TIMEOUT = (2.0, 20.0)

    client = get_workflow_client()

    assert isinstance(client, WorkflowClient)
    assert client.base_url == "http://main.test:8001"
    assert client.user == "u"
    assert client.timeout == (2.0, 20.0)


def test_the_factory_builds_a_client_for_a_given_pipeline(settings):
    pipeline = {
        "slug": "other",
        "name": "Other",
        "url": "http://other.test",
        "user": "o",
        "key": "other-key",
    }

    assert get_workflow_client(pipeline).base_url == "http://other.test"


def test_the_factory_raises_config_error_for_missing_credentials(settings):
    settings.LOOKOUT_PIPELINES = [
        {"slug": "main", "name": "Main", "url": "http://main.test", "user": "u", "key": ""}
    ]

    with pytest.raises(WorkflowConfigError, match="'main' has no key"):
        get_workflow_client()


def test_the_factory_raises_config_error_without_pipelines(settings):
    settings.LOOKOUT_PIPELINES = []

    with pytest.raises(WorkflowConfigError):
        get_workflow_client()


def test_the_key_is_not_in_a_config_error(settings):
    settings.LOOKOUT_PIPELINES = [
        {"slug": "main", "name": "Main", "url": "", "user": "u", "key": KEY}
    ]

    with pytest.raises(WorkflowConfigError) as caught:
        get_workflow_client()

    assert KEY not in str(caught.value)
