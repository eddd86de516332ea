"""Seed finished units with jobs, history and AIPs the way the pollers store them.

`history_seed` returns what it made as plain records, so tests compute expected
figures from these records, never from the rollups under test.
"""

from __future__ import annotations

import random
import uuid as uuidlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from dashboard.models import StatusChange, StoragePackage, TimesFrom, Unit, UnitJobs

GROUPS = ("Verify transfer compliance", "Scan for viruses", "Normalize", "Store AIP")
JOBS = {group: (f"{group}: first", f"{group}: second") for group in GROUPS}


@dataclass
class SeededUnit:
    pipeline: str
    uuid: str
    kind: str
    status: str
    start: datetime
    # group -> seconds spent (sum of job spans), in the order run
    groups: dict[str, float] = field(default_factory=dict)
    group_end: dict[str, datetime] = field(default_factory=dict)
    failed_group: str = ""
    failed_job: str = ""
    aip_size: int = 0
    stored_at: datetime | None = None


@dataclass
class SeededWait:
    pipeline: str
    decision: str
    start: datetime
    end: datetime


@dataclass
class Seeded:
    units: list[SeededUnit]
    waits: list[SeededWait]


def _naive(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat()


def history_seed(
    *,
    pipelines: tuple[str, ...] = ("default",),
    days: int = 10,
    per_day: int = 4,
    seed: int = 7,
    end: datetime | None = None,
    failure_rate: float = 0.2,
) -> Seeded:
    rng = random.Random(seed)
    end = end or timezone.now() - timedelta(days=1, hours=2)
    units: list[Unit] = []
    jobs_rows: list[tuple[Unit, list[dict]]] = []
    changes: list[StatusChange] = []
    packages: list[StoragePackage] = []
    seeded: list[SeededUnit] = []
    waits: list[SeededWait] = []
    counter = 0
    for pipeline in pipelines:
        for day in range(days):
            for _ in range(per_day):
                counter += 1
                start = end - timedelta(days=day, minutes=rng.randint(0, 600))
                kind = "sip" if counter % 2 else "transfer"
                uuid = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
                record = SeededUnit(pipeline, uuid, kind, "COMPLETE", start)
                fail_at = rng.randrange(len(GROUPS)) if rng.random() < failure_rate else None
                moment = start
                jobs: list[dict] = []
                for index, group in enumerate(GROUPS):
                    spent = 0.0
                    for job_index, job_name in enumerate(JOBS[group]):
                        seconds = rng.choice([0.5, 3, 40, 200, 1500]) * rng.uniform(0.8, 1.2)
                        job_start = moment
                        moment = moment + timedelta(seconds=seconds)
                        failed = fail_at == index and job_index == 1
                        jobs.append(
                            {
                                "uuid": str(uuidlib.uuid4()),
                                "name": job_name,
                                "status": "FAILED" if failed else "COMPLETE",
                                "microservice": group,
                                "link_uuid": None,
                                "tasks": [
                                    {
                                        "uuid": str(uuidlib.uuid4()),
                                        "exit_code": 1 if failed else 0,
                                        "time_created": _naive(job_start),
                                        "time_started": _naive(job_start),
                                        "time_ended": _naive(moment),
                                    }
                                ],
                            }
                        )
                        spent += (moment - job_start).total_seconds()
                        # a gap between jobs (a wait) does not count in the group's time
                        moment += timedelta(seconds=5)
                        if failed:
                            break
                    record.groups[group] = spent
                    record.group_end[group] = moment - timedelta(seconds=5)
                    if fail_at == index:
                        record.status = "FAILED"
                        record.failed_group, record.failed_job = group, JOBS[group][1]
                        break
                finished_at = moment
                unit = Unit(
                    pipeline=pipeline,
                    uuid=uuid,
                    kind=kind,
                    name=f"unit-{counter}",
                    status=record.status,
                    microservice=record.failed_group or GROUPS[-1],
                    first_seen_at=start + timedelta(seconds=30),
                    updated_at=finished_at,
                    status_since=finished_at,
                    status_since_from=TimesFrom.UPSTREAM,
                    failed_group=record.failed_group,
                    failed_job=record.failed_job,
                    failed_at=finished_at if record.failed_group else None,
                )
                units.append(unit)
                jobs_rows.append((unit, jobs))
                # history: processing, a decision wait, processing, then the end
                wait_start = start + timedelta(seconds=60)
                wait_end = wait_start + timedelta(seconds=rng.choice([30, 600, 7200, 86400]))
                decision = rng.choice(["Select normalization path", "Approve standard transfer"])
                for status, micro, at in (
                    ("PROCESSING", GROUPS[0], start),
                    ("USER_INPUT", decision, wait_start),
                    ("PROCESSING", GROUPS[1], wait_end),
                    (record.status, unit.microservice, max(finished_at, wait_end)),
                ):
                    changes.append(
                        StatusChange(
                            pipeline=pipeline,
                            unit_uuid=uuid,
                            unit_kind=kind,
                            to_status=status,
                            microservice=micro,
                            at=at,
                        )
                    )
                waits.append(SeededWait(pipeline, decision, wait_start, wait_end))
                if kind == "sip" and record.status == "COMPLETE":
                    record.aip_size = rng.randint(1000, 10**9)
                    record.stored_at = finished_at
                    packages.append(
                        StoragePackage(
                            uuid=uuid,
                            package_type="AIP",
                            status="UPLOADED",
                            size=record.aip_size,
                            stored_date=finished_at,
                            first_seen_at=finished_at,
                            seen_at=finished_at,
                        )
                    )
                seeded.append(record)
    Unit.objects.bulk_create(units, batch_size=1000)
    saved = {u.uuid: u for u in Unit.objects.filter(uuid__in=[u.uuid for u in units])}
    UnitJobs.objects.bulk_create(
        [
            UnitJobs(
                unit=saved[unit.uuid],
                fetched_at=unit.updated_at,
                unit_updated_at=unit.updated_at,
                jobs=jobs,
            )
            for unit, jobs in jobs_rows
        ],
        batch_size=1000,
    )
    StatusChange.objects.bulk_create(changes, batch_size=2000)
    StoragePackage.objects.bulk_create(packages, batch_size=1000)
    return Seeded(seeded, waits)
