"""Against the simulator's back-dated history, every analytics figure matches a count made
straight from the simulator's own answers (read here with plain HTTP, not Lookout's
client, and added up here, not by the rollups)."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from django.test import Client
from django.utils import timezone

from dashboard.lib import histogram
from dashboard.lib.pipelines import pipeline_list
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from tests.integration.conftest import point_at
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

HISTORY_DAYS = 3
# Groups Lookout leaves out of the time per stage (the clean-up after a failure).
CLEANUP = {"Failed transfer", "Failed SIP", "Reject transfer"}
FINAL = {"COMPLETE", "FAILED", "REJECTED"}


class Upstream:
    """The simulator's answers, as a person with curl would read them."""

    def __init__(self, sim: SimulatorProcess) -> None:
        self.sim = sim

    def get(self, url: str, **params: Any) -> Any:
        answer = requests.get(url, params=params, headers=self.sim.auth_header, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def workflow(self, path: str, **params: Any) -> Any:
        return self.get(f"{self.sim.workflow_url}{path}", **params)

    def aips(self) -> list[dict[str, Any]]:
        found, offset = [], 0
        while True:
            page = self.get(
                f"{self.sim.storage_url}/api/v2/file/",
                package_type="AIP",
                limit=100,
                offset=offset,
            )
            found += page["objects"]
            offset += 100
            if not page["meta"]["next"]:
                return found


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text).replace(tzinfo=UTC) if text else None


def _day(moment: datetime) -> str:
    return timezone.localdate(moment).isoformat()


def _job_span(job: dict[str, Any]) -> tuple[datetime, datetime] | None:
    starts = [_time(t["time_started"] or t["time_created"]) for t in job["tasks"]]
    ends = [_time(t["time_ended"]) for t in job["tasks"]]
    starts = [s for s in starts if s]
    if not starts:
        return None
    return min(starts), max([e for e in ends if e] or starts)


def _expected(upstream: Upstream) -> dict[str, Any]:
    """The figures, counted from the units Lookout can learn of: those the completed and
    waiting lists name, and the SIPs the completed transfers name."""
    kinds: dict[str, str] = {}
    for uuid in upstream.workflow("/api/transfer/completed/")["results"]:
        kinds[uuid] = "transfer"
        sip = upstream.workflow(f"/api/transfer/status/{uuid}/").get("sip_uuid")
        if sip and sip != "BACKLOG":
            kinds[sip] = "SIP"
    for uuid in upstream.workflow("/api/ingest/completed/")["results"]:
        kinds[uuid] = "SIP"
    waiting: dict[str, list[str]] = defaultdict(list)
    for entry in upstream.workflow("/api/ingest/waiting/")["results"]:
        waiting[entry["sip_uuid"]].append(entry["microservice"])
    for uuid in waiting:
        kinds.setdefault(uuid, "SIP")

    started: Counter[tuple[str, str]] = Counter()
    stages: dict[str, list[float]] = defaultdict(list)
    runs: Counter[str] = Counter()
    group_failures: Counter[str] = Counter()
    job_failures: Counter[tuple[str, str]] = Counter()
    for uuid, kind in kinds.items():
        path = "transfer" if kind == "transfer" else "ingest"
        try:
            status = upstream.workflow(f"/api/{path}/status/{uuid}/")
        except requests.HTTPError:
            status = upstream.workflow(f"/api/ingest/status/{uuid}/")
        kind = "transfer" if status["type"] == "transfer" else "sip"
        jobs = upstream.workflow(f"/api/v2beta/jobs/{uuid}/", detailed="true")
        spans = [span for job in jobs if (span := _job_span(job))]
        started[(kind, _day(min(span[0] for span in spans)))] += 1
        if status["status"] not in FINAL:
            continue
        failed = next(
            (j for j in jobs if j["status"] == "FAILED" and j["microservice"] not in CLEANUP), None
        )
        seconds: dict[str, float] = defaultdict(float)
        ran: set[str] = set()
        for job in jobs:
            group = job["microservice"]
            if group in CLEANUP:
                continue
            ran.add(group)
            span = _job_span(job)
            if span:
                seconds[group] += (span[1] - span[0]).total_seconds()
        for group in ran:
            runs[group] += 1
            if group in seconds:
                stages[group].append(seconds[group])
            if failed is not None and failed["microservice"] == group:
                group_failures[group] += 1
                job_failures[(group, failed["name"])] += 1

    aips: Counter[str] = Counter()
    stored_bytes: Counter[str] = Counter()
    for package in upstream.aips():
        if package["stored_date"]:
            day = _day(datetime.fromisoformat(package["stored_date"]).replace(tzinfo=UTC))
            aips[day] += 1
            stored_bytes[day] += int(package["size"])
    decisions = Counter(" / ".join(dict.fromkeys(names)) for names in waiting.values())
    return {
        "started": started,
        "stages": stages,
        "runs": runs,
        "group_failures": group_failures,
        "job_failures": job_failures,
        "aips": aips,
        "bytes": stored_bytes,
        "waiting_now": decisions,
    }


def _learn_everything(now: datetime) -> None:
    """A fresh install's first minutes: polls until the history is learnt."""
    pipeline = pipeline_list()[0]
    for step in range(3):
        moment = now + timedelta(seconds=20 * step)
        unit_services.workflow_poll(pipeline=pipeline, now=moment)
        unit_services.jobs_refresh(pipeline=pipeline, now=moment, limit=1000)
    storage_services.storage_poll(budget_seconds=float("inf"))


def test_every_figure_matches_a_count_from_the_simulators_history(settings):
    # The history ends a day before the simulated now: all of it has finished by then.
    now = datetime.now(UTC).replace(microsecond=0)
    start = now - timedelta(days=1)
    with SimulatorProcess(
        units=0,
        packages=0,
        seed=4,
        speed=0,
        start=start.replace(tzinfo=None).isoformat(),
        history_days=HISTORY_DAYS,
        history_per_day=12,
    ) as sim:
        sim.control("advance", {"seconds": 86400})
        point_at(settings, sim)
        expected = _expected(Upstream(sim))
        _learn_everything(timezone.now())
        client = Client()
        client.force_login(make_user("vera", "viewer"))
        body = client.get("/api/v1/analytics/", {"period": "7d"}).json()
        page = client.get("/analytics/", {"period": "7d"}).content.decode()
        csv_text = client.get("/analytics/", {"period": "7d", "csv": "throughput"}).content.decode()

    # The history is meaningful: days of work, failures, AIPs.
    assert len({day for _, day in expected["started"]}) >= HISTORY_DAYS
    assert expected["job_failures"], "the seed should fail a few SIPs"
    assert sum(expected["aips"].values()) > 10

    rows = {row["label"]: row for row in body["throughput"]}
    for (kind, day), count in expected["started"].items():
        assert rows[day][f"{kind}s_started"] == count, (kind, day)
    for day, row in rows.items():
        assert (row["transfers_started"] or 0) == expected["started"][("transfer", day)]
        assert (row["sips_started"] or 0) == expected["started"][("sip", day)]
        assert row["aips_stored"] == expected["aips"][day]
        assert row["bytes_stored"] == expected["bytes"][day]

    stages = {row["group"]: row for row in body["stages"]}
    assert set(stages) == set(expected["stages"])
    for group, values in expected["stages"].items():
        buckets = histogram.empty()
        for value in values:
            histogram.add(buckets, value)
        assert stages[group]["count"] == len(values)
        assert stages[group]["median_seconds"] == pytest.approx(histogram.percentile(buckets, 0.5))
        assert stages[group]["p90_seconds"] == pytest.approx(histogram.percentile(buckets, 0.9))
        # And the page's approximate median is within one bucket of the exact one.
        exact = sorted(values)[(len(values) - 1) // 2]
        assert exact / 1.5 - 1 <= stages[group]["median_seconds"] <= exact * 1.5 + 1
    slowest = sorted(stages.values(), key=lambda row: -(row["median_seconds"] or 0))[:3]
    assert {row["group"] for row in slowest} == {g for g, r in stages.items() if r["slowest"]}
    assert "Normalize" in {row["group"] for row in slowest}

    groups = {row["group"]: (row["runs"], row["failures"]) for row in body["failure_groups"]}
    assert groups == {
        group: (count, expected["group_failures"][group])
        for group, count in expected["runs"].items()
    }
    jobs = {(row["group"], row["job"]): row["failures"] for row in body["failure_jobs"]}
    assert jobs == dict(expected["job_failures"])

    waits = {row["decision"]: row["waiting_now"] for row in body["waits"] if row["waiting_now"]}
    assert waits == dict(expected["waiting_now"])

    # The page and its CSV downloads show the same numbers.
    transfers = sum(c for (kind, _), c in expected["started"].items() if kind == "transfer")
    sips = sum(c for (kind, _), c in expected["started"].items() if kind == "sip")
    assert f"{transfers} transfers started · {sips} SIPs · " in page
    assert f"{sum(expected['aips'].values())} AIPs stored" in page
    lines = csv_text.strip().splitlines()[1:]
    by_day = {line.split(",")[0]: line.split(",")[1:] for line in lines}
    for (kind, day), count in expected["started"].items():
        assert by_day[day][0 if kind == "transfer" else 1] == str(count)
    for day, count in expected["aips"].items():
        assert by_day[day][2:] == [str(count), str(expected["bytes"][day])]
