"""The ingest run pages: the new-run form (roles, validation that keeps what was typed,
one run per confirmation), the runs and a run in each state, steering, and the CSV."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.forms.storage import encode_browse_path
from dashboard.models import AuditEntry, DailyThroughput, IngestItem, IngestRun
from dashboard.services import ingest_runs
from dashboard.services import storage as storage_services
from dashboard.views.ingest_runs import CSV_COLUMNS
from tests.storage.fakes import TRANSFER_SOURCE, FakeStorageClient, browse_listing

pytestmark = pytest.mark.django_db
LIST = "/ingest-runs/"
NEW = "/ingest-runs/new/"
BROWSE = "/ingest-runs/new/browse/"
DETAILS = "/ingest-runs/new/details/"
SUBMIT = "/ingest-runs/new/submit/"
KEY = "i" * 32
S = IngestItem.State
TRANSFER = "11111111-1111-4111-8111-111111111111"
SIP = "22222222-2222-4222-8222-222222222222"


@pytest.fixture(autouse=True)
def two_pipelines(settings):
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": slug,
            "name": f"Pipeline {slug}",
            "url": f"http://{slug}.invalid",
            "user": "u",
            "key": "k",
            "processing_configs": ["default", "automated"],
        }
        for slug in ("p1", "p2")
    ]


@pytest.fixture
def storage(monkeypatch) -> FakeStorageClient:
    client = FakeStorageClient.seeded()
    client.listings[TRANSFER_SOURCE] = {
        b"": browse_listing({"batch": {"object count": 4}, "a.txt": {"size": 1}}),
        b"batch": browse_listing(
            {"item-1": {"object count": 1}, "item-2": {"object count": 1}, "b.zip": {"size": 9}}
        ),
    }
    monkeypatch.setattr(storage_services, "get_storage_client", lambda: client)
    monkeypatch.setattr(ingest_runs, "get_storage_client", lambda: client)
    storage_services.storage_poll()
    return client


def _fields(**overrides) -> dict:
    fields = {
        "location": TRANSFER_SOURCE,
        "folder": encode_browse_path(b"batch"),
        "name": "Backlog <2026>",
        "pipelines": ["p1", "p2"],
        "config_p1": "automated",
        "config_p2": "default",
        "transfer_type": "standard",
        "accession": "2026-{n:04}",
        "auto_approve": "on",
        "max_in_flight": "3",
        "window": "19:00-07:00",
        "depth": "1",
        "settle_minutes": "10",
        "skip_existing": "on",
    }
    fields.update(overrides)
    return fields


def _submit_fields(**overrides) -> dict:
    fields = _fields(**overrides)
    fields.setdefault("idempotency_key", KEY)
    for name in ("auto_approve", "skip_existing", "watch", "hide_when_stored"):
        fields[name] = "True" if fields.get(name) == "on" else "False"
    return fields


def _checked(page: str, name: str) -> bool:
    tag = re.search(rf'<input type="checkbox" name="{name}"[^>]*>', page)
    assert tag is not None, name
    return " checked" in tag.group(0)


def _run(status=IngestRun.Status.RUNNING, **fields) -> IngestRun:
    now = timezone.now()
    return IngestRun.objects.create(
        name=fields.pop("name", "Backlog 2026"),
        source_location=TRANSFER_SOURCE,
        path=b"batch",
        path_shown="batch",
        pipelines=["p1", "p2"],
        processing_configs={"p1": "automated", "p2": "default"},
        status=status,
        **{
            "created_at": now - timedelta(hours=1),
            "started_at": now - timedelta(hours=1),
            **fields,
        },
    )


def _item(run: IngestRun, number: int, state: str, **fields) -> IngestItem:
    name = fields.pop("name", f"item-{number}")
    return IngestItem.objects.create(
        run=run,
        path=name.encode(),
        path_shown=name,
        name=name,
        number=number,
        state=state,
        **fields,
    )


def _seed_items(run: IngestRun) -> None:
    now = timezone.now()
    _item(
        run,
        1,
        S.STORED,
        pipeline="p1",
        transfer_uuid=TRANSFER,
        sip_uuid=SIP,
        aip_uuid=SIP,
        attempts=1,
        started_at=now - timedelta(minutes=50),
        finished_at=now - timedelta(minutes=20),
    )
    _item(
        run,
        2,
        S.FAILED,
        pipeline="p2",
        transfer_uuid="33333333-3333-4333-8333-333333333333",
        attempts=1,
        failed_job="Validate formats",
        reason="The transfer failed at Validate formats.",
    )
    _item(run, 3, S.PROCESSING, pipeline="p1", transfer_uuid="44444444-4444-4444-8444-444444444444")
    _item(run, 4, S.QUEUED)
    _item(run, 5, S.SKIPPED, name="<script>alert(1)</script>", reason="Already stored as an AIP.")


# --- who may see and do what ---------------------------------------------------------


def test_anonymous_users_go_to_the_login_page(client):
    assert client.get(LIST)["Location"].startswith("/accounts/login/")
    assert client.get(NEW)["Location"].startswith("/accounts/login/")


def test_a_user_without_a_role_sees_neither_runs_nor_the_form(no_role):
    assert no_role.get(LIST).status_code == 403
    assert no_role.get(NEW).status_code == 403


def test_a_viewer_sees_runs_but_may_not_create_or_steer_them(viewer, storage):
    run = _run()
    _seed_items(run)
    listing = viewer.get(LIST).content.decode()
    assert "Backlog 2026" in listing
    assert "New ingest run" not in listing
    page = viewer.get(f"{LIST}{run.pk}/").content.decode()
    assert "Pause…" not in page and "Cancel the run…" not in page
    assert viewer.get(NEW).status_code == 403
    assert viewer.post(DETAILS, _fields()).status_code == 403
    assert viewer.post(SUBMIT, _submit_fields()).status_code == 403
    assert viewer.post(f"{LIST}{run.pk}/pause/do/", {"idempotency_key": KEY}).status_code == 403
    assert IngestRun.objects.count() == 1
    run.refresh_from_db()
    assert run.status == IngestRun.Status.RUNNING


def test_the_menu_offers_ingest_runs_to_every_role(viewer):
    assert 'href="/ingest-runs/"' in viewer.get("/units/").content.decode()


# --- the new-run form ------------------------------------------------------------------


def test_step_one_leads_through_the_location_to_its_folders(operator, storage, monkeypatch):
    monkeypatch.setattr("dashboard.tasks.location_listing_enqueue", lambda *args: True)
    assert TRANSFER_SOURCE in operator.get(NEW).content.decode()
    response = operator.get(NEW, {"location": TRANSFER_SOURCE})
    assert response.status_code == 302
    assert response["Location"].startswith(BROWSE)
    assert operator.get(NEW, {"location": "not-a-location"}).status_code == 400


def test_the_settings_form_starts_from_the_chosen_folder_with_the_defaults(operator, storage):
    page = operator.get(
        DETAILS, {"location": TRANSFER_SOURCE, "folder": encode_browse_path(b"batch")}
    ).content.decode()
    assert 'name="name" value="batch"' in page  # the folder's name proposed
    assert 'name="max_in_flight" value="2"' in page
    assert 'name="settle_minutes" value="10"' in page
    assert _checked(page, "auto_approve") and _checked(page, "skip_existing")
    assert not _checked(page, "watch") and not _checked(page, "hide_when_stored")
    # Every pipeline, with its own processing configurations.
    assert 'value="p1" checked' in page and 'value="p2" checked' in page
    assert 'name="config_p1"' in page and 'name="config_p2"' in page


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"pipelines": []}, "Choose at least one pipeline."),
        ({"pipelines": ["p1", "nope"]}, "Select a valid choice"),
        ({"config_p1": "fancy"}, "Select a valid choice"),
        ({"max_in_flight": "0"}, "At least one transfer must be allowed in flight."),
        ({"window": "7pm to 7am"}, "Give the window as HH:MM-HH:MM"),
        ({"window": "25:00-07:00"}, "between 00:00 and 23:59"),
        ({"accession": "{year}-{n}"}, "may only use {n} and {name}"),
        ({"name": "   "}, "This field is required."),
        ({"depth": "3"}, "Select a valid choice"),
    ],
)
def test_invalid_settings_get_a_message_and_keep_what_was_typed(operator, storage, changes, words):
    response = operator.post(DETAILS, _fields(**changes))

    assert response.status_code == 400
    page = response.content.decode()
    assert "The run was not created: correct what is marked below." in page
    assert words in page
    assert "Accession" in page and 'value="2026-{n:04}"' in page or "accession" in changes
    assert 'value="Backlog &lt;2026&gt;"' in page or "name" in changes
    assert IngestRun.objects.count() == 0


def test_valid_settings_lead_to_a_summary_in_words(operator, storage):
    response = operator.post(DETAILS, _fields())

    assert response.status_code == 200
    page = response.content.decode()
    assert "New ingest run: confirm" in page
    assert "Backlog &lt;2026&gt;" in page  # escaped
    assert "Pipeline p1, processing configuration <code>automated</code>" in page
    assert "19:00-07:00" in page
    assert 'name="idempotency_key"' in page
    assert IngestRun.objects.count() == 0  # nothing is created before the confirmation


def test_confirming_creates_the_run_once_with_an_audit_row(operator, storage):
    first = operator.post(SUBMIT, _submit_fields())
    again = operator.post(SUBMIT, _submit_fields())

    run = IngestRun.objects.get()
    assert first.status_code == 302
    assert first["Location"] == f"{LIST}{run.pk}/"
    assert again.status_code == 302
    assert run.name == "Backlog <2026>"
    assert run.pipelines == ["p1", "p2"]
    assert run.processing_configs == {"p1": "automated", "p2": "default"}
    assert (run.max_in_flight, run.settle_seconds, run.accession) == (3, 600, "2026-{n:04}")
    assert run.auto_approve and run.skip_existing and not run.watch
    assert bytes(run.path) == b"batch"
    entry = AuditEntry.objects.get(action="ingest_run_create")
    assert entry.actor_name == "otto"
    followed = operator.get(again["Location"]).content.decode()
    assert "already submitted; nothing was sent again" in followed


def test_a_folder_the_storage_service_does_not_have_is_reported_on_the_form(operator, storage):
    response = operator.post(SUBMIT, _submit_fields(folder=encode_browse_path(b"gone")))

    assert response.status_code == 400
    page = response.content.decode()
    assert "There is no folder gone in this location." in page
    assert "New ingest run: settings" in page
    assert 'value="Backlog &lt;2026&gt;"' in page  # what was typed is kept
    assert IngestRun.objects.count() == 0


def test_a_folder_with_nothing_to_ingest_is_reported_on_the_form(operator, storage):
    storage.listings[TRANSFER_SOURCE][b"batch"] = browse_listing({"a.txt": {"size": 1}})

    response = operator.post(SUBMIT, _submit_fields())

    assert response.status_code == 400
    assert "holds no folder or zip, 7z or tar file" in response.content.decode()


def test_a_damaged_confirmation_is_asked_for_again(operator, storage):
    response = operator.post(SUBMIT, _submit_fields(idempotency_key="bad"))

    assert response.status_code == 400
    assert "please confirm again" in response.content.decode()
    assert IngestRun.objects.count() == 0


# --- the runs and a run -------------------------------------------------------------------


def test_the_runs_list_shows_each_run_with_its_status_and_progress(viewer):
    running = _run(name="Running one")
    _seed_items(running)
    _run(name="Finished one", status=IngestRun.Status.FINISHED, finished_at=timezone.now())

    page = viewer.get(LIST).content.decode()

    assert "Running one" in page and "Finished one" in page
    assert "3 of 5 done (60 %)" in page  # stored, failed and skipped are done
    assert "Pipeline p1, Pipeline p2" in page
    assert 'hx-trigger="every 5s' in page


def test_a_running_run_shows_its_progress_counts_waits_and_links(operator):
    run = _run(waits={"p2": "The workflow service is stale."})
    _seed_items(run)

    response = operator.get(f"{LIST}{run.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "Running" in page
    assert "3 of 5 done (60 %)" in page
    assert '<progress max="5" value="3"' in page
    assert "Not receiving items now:" in page
    assert "Pipeline p2: The workflow service is stale." in page
    assert f'href="/units/{TRANSFER}/"' in page
    assert f'href="/units/{SIP}/"' in page
    assert f'href="/storage/packages/{SIP}/"' in page
    assert "The transfer failed at Validate formats." in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page
    assert "Pause…" in page and "Cancel the run…" in page and "Retry failed items…" in page
    assert "Resume…" not in page
    assert 'hx-trigger="every 5s' in page


def test_the_eta_comes_from_the_pipelines_measured_throughput(operator):
    run = _run()
    _seed_items(run)  # two items left: one processing, one queued
    # 6,048 AIPs in the last 7 days: one every 100 s.
    DailyThroughput.objects.create(pipeline="p1", day=timezone.localdate(), aips_stored=6048)

    page = operator.get(f"{LIST}{run.pk}/").content.decode()

    assert "Expected to finish around" in page
    assert "(in about 3 min)" in page  # 2 items at 100 s each


def test_without_a_measured_throughput_the_page_says_so(operator):
    run = _run(started_at=None)
    _item(run, 1, S.QUEUED)

    page = operator.get(f"{LIST}{run.pk}/").content.decode()

    assert "No finish time yet: no throughput measured." in page


def test_a_paused_run_offers_resume_and_keeps_refreshing(operator):
    run = _run(status=IngestRun.Status.PAUSED)
    _seed_items(run)

    page = operator.get(f"{LIST}{run.pk}/").content.decode()

    assert "Paused" in page
    assert "Resume…" in page and "Pause…" not in page
    assert 'hx-trigger="every 5s' in page


def test_a_run_finished_with_failures_says_so_and_stops_refreshing(operator):
    run = _run(status=IngestRun.Status.FINISHED, finished_at=timezone.now())
    _item(run, 1, S.STORED, aip_uuid=SIP)
    _item(run, 2, S.FAILED, failed_job="Normalize")

    page = operator.get(f"{LIST}{run.pk}/").content.decode()

    assert "Finished with failures" in page
    assert "Retry failed items…" in page
    assert "Pause…" not in page and "Cancel the run…" not in page
    assert "hx-trigger" not in page.split('id="run-live"')[1].split(">")[0]


def test_a_cancelled_run_says_what_that_means_and_offers_no_steering(operator):
    run = _run(status=IngestRun.Status.CANCELLED, finished_at=timezone.now())
    _item(run, 1, S.SKIPPED, reason=ingest_runs.CANCELLED_REASON)

    page = operator.get(f"{LIST}{run.pk}/").content.decode()

    assert "Cancelled" in page
    assert "Cancelled: its queued items were skipped" in page
    assert ingest_runs.CANCELLED_REASON in page
    assert not any(f"{words}…" in page for words in ("Pause", "Resume", "Cancel the run"))
    assert "Download the CSV report" in page
    assert "hx-trigger" not in page.split('id="run-live"')[1].split(">")[0]


def test_a_queued_run_says_its_folder_is_listed_next(operator):
    run = _run(status=IngestRun.Status.QUEUED, started_at=None, watch=True, settle_seconds=600)

    page = operator.get(f"{LIST}{run.pk}/").content.decode()

    assert "Queued" in page
    assert "No item yet: the folder is listed at the next scheduling cycle." in page
    assert "Yes: a new item is queued once unchanged for 10 min" in page
    assert "Pause…" in page and "Cancel the run…" in page


def test_the_items_filter_by_state_and_a_bad_filter_shows_all(operator):
    run = _run()
    _seed_items(run)

    failed = operator.get(f"{LIST}{run.pk}/", {"state": "failed"}).content.decode()
    assert "Items: Failed" in failed
    assert "item-2" in failed and "item-1</code>" not in failed
    everything = operator.get(f"{LIST}{run.pk}/", {"state": "nonsense"}).content.decode()
    assert "item-1" in everything and "item-4" in everything


def test_the_items_are_paginated(operator):
    run = _run()
    IngestItem.objects.bulk_create(
        IngestItem(
            run=run,
            path=f"i{n}".encode(),
            path_shown=f"i{n:03d}",
            name=f"i{n}",
            number=n,
            state=S.QUEUED,
        )
        for n in range(1, 61)
    )
    first = operator.get(f"{LIST}{run.pk}/").content.decode()
    second = operator.get(f"{LIST}{run.pk}/", {"page": 2}).content.decode()
    assert "Page 1 of 2 (60 in all)" in first
    assert "i050" in first and "i051" not in first
    assert "i051" in second


def test_an_htmx_poll_gets_only_the_live_region(operator):
    run = _run()
    _seed_items(run)

    page = operator.get(f"{LIST}{run.pk}/", HTTP_HX_REQUEST="true").content.decode()

    assert page.lstrip().startswith('<div id="run-live"')
    assert "<html" not in page


def test_an_unknown_run_is_a_404(operator):
    assert operator.get(f"{LIST}999/").status_code == 404


# --- steering ------------------------------------------------------------------------


def test_pausing_is_confirmed_audited_and_done_once(operator):
    run = _run()
    confirm = operator.get(f"{LIST}{run.pk}/pause/")
    assert confirm.status_code == 200
    assert "Nothing new starts" in confirm.content.decode()

    first = operator.post(f"{LIST}{run.pk}/pause/do/", {"idempotency_key": KEY})
    again = operator.post(f"{LIST}{run.pk}/pause/do/", {"idempotency_key": KEY})

    assert first.status_code == again.status_code == 302
    assert first["Location"] == f"{LIST}{run.pk}/"
    run.refresh_from_db()
    assert run.status == IngestRun.Status.PAUSED
    assert AuditEntry.objects.filter(action="ingest_run_pause").count() == 1


def test_resume_cancel_and_retry_failed_change_the_run(operator):
    run = _run(status=IngestRun.Status.PAUSED)
    _seed_items(run)

    operator.post(f"{LIST}{run.pk}/resume/do/", {"idempotency_key": "r" * 32})
    run.refresh_from_db()
    assert run.status == IngestRun.Status.RUNNING
    operator.post(f"{LIST}{run.pk}/retry-failed/do/", {"idempotency_key": "f" * 32})
    assert run.items.get(number=2).state == S.QUEUED
    operator.post(f"{LIST}{run.pk}/cancel/do/", {"idempotency_key": "c" * 32})
    run.refresh_from_db()
    assert run.status == IngestRun.Status.CANCELLED
    assert run.items.get(number=4).state == S.SKIPPED
    assert run.items.get(number=3).state == S.PROCESSING  # what runs is never touched


def test_a_refused_step_is_reported_in_words(operator):
    run = _run(status=IngestRun.Status.CANCELLED)

    response = operator.post(f"{LIST}{run.pk}/resume/do/", {"idempotency_key": KEY}, follow=True)

    assert "Only a paused run can be resumed." in response.content.decode()


# --- the CSV report ---------------------------------------------------------------------


def test_the_csv_report_has_a_row_per_item_under_english_keys(viewer):
    run = _run()
    _seed_items(run)

    response = viewer.get(f"{LIST}{run.pk}/report.csv")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f"lookout-ingest-run-{run.pk}-" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [row["state"] for row in rows] == ["stored", "failed", "processing", "queued", "skipped"]
    assert rows[0]["aip_uuid"] == SIP and rows[0]["path"] == "item-1"
    assert rows[1]["failed_job"] == "Validate formats"
    assert rows[3]["transfer_uuid"] == "" and rows[3]["finished_at"] == ""
    assert rows[4]["name"] == "<script>alert(1)</script>"
