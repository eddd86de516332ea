"""A real Celery worker (with its beat) runs an ingest run of 30 items on two simulated
pipelines with a cap of 3, and is SIGKILLed twice mid-run, on Redis and on the embedded
file broker; a new worker takes over from the database each time.

No item is started twice; every item ends stored or failed as the simulator says;
never more than 3 items in flight on a pipeline (sampled from the database all along).
A kill can land between an item's claim and its start request: that item was never
started, and must end failed as a lost start once the (here shortened) wait for its
transfer is over, never started by the new worker. At most one item per kill.

On the embedded broker a half-written message file, as a producer killed mid-write
leaves with Kombu's own transport, is put in the queue before a restart: the new worker
sets it aside and carries on.

A killed worker's poll locks would expire within a minute; the test removes them with
the worker gone, to stay short (what it checks is the run, not the lock timeout).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import redis

from tests.support.celery_worker import ROOT, worker_start
from tests.support.databases import rows
from tests.support.ingest_simulator import IngestSimulator

pytestmark = [pytest.mark.integration, pytest.mark.database]

ITEMS = 30
CAP = 3
FINAL = ("stored", "failed")
IN_FLIGHT = ("starting", "processing", "waiting")
KILLS = 2
# Long enough for a transfer whose start answer was lost to show up and be matched by
# name (it shows up when it completes, within seconds at the simulator's speed).
LOST_START_SECONDS = 60


def _env(tmp_path: Path, sim: IngestSimulator, database_url: str, redis_url: str) -> dict:
    second = [
        {"slug": slug, "url": url, "user": sim.user, "key_env": "LOOKOUT_TEST_P_KEY"}
        for slug, url in zip(sim.slugs[1:], sim.workflow_urls[1:], strict=True)
    ]
    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(json.dumps(second))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "LOOKOUT_VAR_DIR": str(tmp_path / "var"),
        "LOOKOUT_WORKFLOW_SLUG": sim.slugs[0],
        "LOOKOUT_WORKFLOW_URL": sim.workflow_urls[0],
        "LOOKOUT_WORKFLOW_USER": sim.user,
        "LOOKOUT_WORKFLOW_KEY": sim.key,
        "LOOKOUT_TEST_P_KEY": sim.key,
        "LOOKOUT_PIPELINES_FILE": str(pipelines_file),
        "LOOKOUT_STORAGE_URL": sim.storage_url,
        "LOOKOUT_STORAGE_USER": sim.user,
        "LOOKOUT_STORAGE_KEY": sim.key,
        "LOOKOUT_WORKFLOW_POLL_INTERVAL": "1",
        "LOOKOUT_JOBS_POLL_INTERVAL": "5",
        "LOOKOUT_STORAGE_POLL_INTERVAL": "30",
        "LOOKOUT_INGEST_LOST_START_SECONDS": str(LOST_START_SECONDS),
    }
    env.pop("REDIS_URL", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


class InFlightWatch:
    """Samples the items in flight per pipeline from the database, in a thread."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.most: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        states = ", ".join(f"'{state}'" for state in IN_FLIGHT)
        query = (
            "SELECT pipeline, COUNT(*) FROM dashboard_ingestitem "
            f"WHERE state IN ({states}) GROUP BY pipeline"
        )
        while not self._stop.is_set():
            try:
                for pipeline, count in rows(self.url, query):
                    self.most[pipeline] = max(self.most[pipeline], int(count))
            except Exception:  # noqa: BLE001 - SQLite busy for a moment: sample again
                pass
            time.sleep(0.1)

    def __enter__(self) -> InFlightWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _states(database_url: str) -> Counter[str]:
    try:
        return Counter(
            state for (state,) in rows(database_url, "SELECT state FROM dashboard_ingestitem")
        )
    except Exception:  # noqa: BLE001 - locked or not migrated yet
        return Counter()


def _unfinished(database_url: str) -> list[tuple]:
    states = ", ".join(f"'{state}'" for state in FINAL)
    try:
        return rows(
            database_url,
            "SELECT name, state, pipeline, transfer_uuid, started_at, reason "
            f"FROM dashboard_ingestitem WHERE state NOT IN ({states}) ORDER BY number",
        )
    except Exception as exc:  # noqa: BLE001 - only to explain a failure
        return [("unreadable", str(exc))]


def _wait(what: str, done, log: Path, seconds: float, database_url: str) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(
                f"{what} within {seconds} s; items not ended: {_unfinished(database_url)}; "
                f"worker log:\n{log.read_text()[-6000:]}"
            )
        time.sleep(0.2)


def _kill(worker: subprocess.Popen[bytes]) -> None:
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)


def _release_locks(database_url: str, env: dict) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from dashboard.models import TaskLock; TaskLock.objects.all().delete()"],
        cwd=ROOT, env=env, check=True, timeout=60, capture_output=True,
    )  # fmt: skip


def _plant_half_written_message(env: dict) -> Path:
    queue = Path(env["LOOKOUT_VAR_DIR"]) / "celery-broker" / "queue"
    planted = queue / "0_half-written.celery.msg"
    planted.write_bytes(b'{"body": "eyJ0YXNrIjogImRhc2hib2FyZC50YXNrcy5')
    return planted


def _run_killed_twice(tmp_path: Path, database_url: str, redis_url: str) -> None:
    with IngestSimulator(pipelines=2, speed=150, seed=21) as sim:
        names = sim.add_items(b"batch", ITEMS, zips=3)
        env = _env(tmp_path, sim, database_url, redis_url)
        seeded = subprocess.run(
            [sys.executable, "-m", "tests.support.ingest_seed", sim.location, "batch", str(CAP)],
            cwd=ROOT, env=env, check=True, timeout=120, capture_output=True, text=True,
        )  # fmt: skip
        assert seeded.stdout.strip().isdigit()
        with InFlightWatch(database_url) as watch:
            for round_number, started_before_kill in enumerate((6, 16, None), start=1):
                log = tmp_path / f"worker-{round_number}.log"
                worker = worker_start(env, log, tmp_path / f"beat-{round_number}", own_group=True)
                try:
                    if started_before_kill is None:
                        _wait(
                            "the items did not all end",
                            lambda: sum(_states(database_url)[s] for s in FINAL) == ITEMS,
                            log,
                            seconds=150,
                            database_url=database_url,
                        )
                        break
                    _wait(
                        f"{started_before_kill} items did not start",
                        lambda n=started_before_kill: (
                            ITEMS - _states(database_url)["queued"] >= n
                            and sum(_states(database_url).values()) == ITEMS
                        ),
                        log,
                        seconds=90,
                        database_url=database_url,
                    )
                    _kill(worker)
                    _release_locks(database_url, env)
                    if not redis_url and round_number == 1:
                        planted = _plant_half_written_message(env)
                finally:
                    if worker.poll() is None:
                        worker.terminate()
                        worker.wait(timeout=30)
        starts = sim.starts()
        items = rows(
            database_url,
            "SELECT name, state, pipeline, transfer_uuid, attempts, reason "
            "FROM dashboard_ingestitem",
        )
        lost = {name for name, *_, reason in items if "its answer was lost" in reason}
        assert len(lost) <= KILLS, lost
        started = sorted(starts[sim.slugs[0]] + starts[sim.slugs[1]])
        assert started == sorted(set(names) - lost)
        assert sum(counter.total() for counter in starts.values()) == ITEMS - len(lost)
        assert max(watch.most.values()) <= CAP, watch.most
        assert watch.most[sim.slugs[0]] == CAP or watch.most[sim.slugs[1]] == CAP
        for name, state, pipeline, transfer_uuid, attempts, _reason in items:
            assert state in FINAL, (name, state)
            assert attempts == 1
            if name in lost:  # claimed, then killed before its start went out
                assert (state, transfer_uuid, starts[pipeline][name]) == ("failed", None, 0)
                continue
            assert starts[pipeline][name] == 1
            assert transfer_uuid, name  # matched even when the start's answer was lost
            assert sim.outcome(pipeline, transfer_uuid) == state, name
        if not redis_url:
            assert not planted.exists()
            broken = Path(env["LOOKOUT_VAR_DIR"]) / "celery-broker" / "broken"
            assert planted.name in [path.name for path in broken.iterdir()]
            assert "could not be read" in (tmp_path / "worker-2.log").read_text()


def test_a_run_survives_two_worker_kills_on_the_embedded_file_broker(
    tmp_path, scratch_database_url
):
    _run_killed_twice(tmp_path, scratch_database_url, redis_url="")


def test_a_run_survives_two_worker_kills_on_redis(tmp_path, scratch_database_url, redis_url):
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    try:
        _run_killed_twice(tmp_path, scratch_database_url, redis_url=redis_url)
    finally:
        client.flushall()
