"""A real Celery worker stopped or killed in the middle of sending alerts, and a new one
started: every outbox message arrives, and none twice, at a real SMTP server and a real
webhook receiver. The receiver holds the first webhook open, so the stop lands inside a
send.

- Warm shutdown (SIGTERM): the worker finishes the send it is in and records it; the
  new worker sends the rest. Every message arrives exactly once.
- Crash (SIGKILL to the worker and its pool): the message in flight had reached the
  receiver, but the worker died before recording it. Its claim runs out and the new
  worker sends it again with the same message id, for the receiver to drop; every other
  message arrives exactly once.

The lease is shortened through LOOKOUT_ALERT_DELIVERY_SECONDS so the test stays short.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from tests.integration.test_celery_worker import stack_env
from tests.support.celery_worker import ROOT, worker_start
from tests.support.databases import scalar
from tests.support.receivers import Inbox, WebhookReceiver, smtp_server, webhook_receiver
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.database]

ALERTS = 3  # one e-mail and one webhook each
DELIVERY_SECONDS = 6  # the sending task's time limit; claims last twice that
WAIT_SECONDS = 45


def _db(url: str, query: str) -> int:
    """Read the worker's database, retrying while SQLite is locked by a writer."""
    for _ in range(50):
        try:
            return int(scalar(url, query))
        except sqlite3.OperationalError:
            time.sleep(0.1)
    return int(scalar(url, query))


def _wait(what: str, done: Callable[[], bool], log: Path) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {WAIT_SECONDS} s; worker log:\n{log.read_text()[-4000:]}")
        time.sleep(0.2)


def _outbox(url: str, where: str) -> int:
    return _db(url, f"SELECT COUNT(*) FROM dashboard_alertmessage WHERE {where}")


def _in_flight(hook: WebhookReceiver) -> int:
    """The outbox id of the message the receiver held."""
    return int(hook.arrivals[0].removeprefix("lookout-"))


def _stack(tmp_path: Path, redis_url: str, database_url: str, smtp_port: int, sim) -> dict:
    return {
        **stack_env(tmp_path, sim, redis_url, database_url),
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "EMAIL_TIMEOUT": "1",
        "LOOKOUT_WEBHOOK_TIMEOUT": "1",
        "LOOKOUT_ALERT_DELIVERY_SECONDS": str(DELIVERY_SECONDS),
    }


def _seed(env: dict[str, str], hook: WebhookReceiver) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.outbox_seed", hook.url, "ops@example.org"]
        + [str(ALERTS)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    )
    hook.secret = done.stdout.strip().splitlines()[-1]


def _every_message(url: str) -> set[str]:
    assert _outbox(url, "alert_id IS NOT NULL") == 2 * ALERTS  # only what was seeded
    return {f"lookout-{n}" for n in range(1, 2 * ALERTS + 1)}


def _stop(worker: subprocess.Popen[bytes]) -> None:
    """Stop a worker whose part of the test is over; one slow to shut down (its beat or
    a last poll still running) is killed rather than failing the test after the fact."""
    if worker.poll() is None:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=30)


def _restart_and_deliver(
    tmp_path: Path, env: dict[str, str], database_url: str, inbox: Inbox, hook: WebhookReceiver
) -> Path:
    """Start a new worker, wait until the whole outbox is sent, let a few more polls pass
    (each queues a delivery run) and stop it."""
    log = tmp_path / "worker-2.log"
    worker = worker_start(env, log, tmp_path / "beat-2")
    try:
        _wait(
            "the new worker did not send the whole outbox",
            lambda: _outbox(database_url, "sent_at IS NULL") == 0,
            log,
        )
        time.sleep(3)  # polls every second: nothing more may go out
    finally:
        _stop(worker)
    assert _outbox(database_url, "gave_up_at IS NOT NULL") == 0
    return log


def _run_until_held(
    tmp_path: Path, env: dict[str, str], database_url: str, hook: WebhookReceiver
) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / "worker-1.log"
    worker = worker_start(env, log, tmp_path / "beat-1", own_group=True)
    _wait("the worker never began sending", hook.held.is_set, log)
    return worker, log


@pytest.fixture
def empty_redis(redis_url: str):
    """The session's Redis with no queued or unacknowledged task of an earlier test."""
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    yield redis_url
    client.flushall()


@pytest.fixture
def stack(tmp_path, empty_redis, scratch_database_url):
    with (
        smtp_server() as (smtp_port, inbox),
        webhook_receiver(hold_first=True) as hook,
        SimulatorProcess(units=5, packages=5, seed=11, speed=0) as sim,
    ):
        env = _stack(tmp_path, empty_redis, scratch_database_url, smtp_port, sim)
        _seed(env, hook)
        yield env, inbox, hook


def test_it_sends_everything_exactly_once_across_a_warm_shutdown_mid_send(
    tmp_path, stack, scratch_database_url
):
    env, inbox, hook = stack
    worker, log = _run_until_held(tmp_path, env, scratch_database_url, hook)
    try:
        worker.send_signal(signal.SIGTERM)
        time.sleep(1)  # the worker is shutting down, its send still open
        assert worker.poll() is None, "a warm shutdown waits for the send in progress"
        hook.release.set()
        assert worker.wait(timeout=30) == 0
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)

    in_flight = _in_flight(hook)
    assert _outbox(scratch_database_url, f"id = {in_flight} AND sent_at IS NOT NULL") == 1
    _restart_and_deliver(tmp_path, env, scratch_database_url, inbox, hook)

    every = _every_message(scratch_database_url)
    webhooks, mails = Counter(hook.arrivals), Counter(inbox.message_ids)
    assert set(webhooks) | set(mails) == every
    assert set(webhooks.values()) == {1}, webhooks
    assert set(mails.values()) == {1}, mails
    assert len(hook.received) == ALERTS  # all signed and accepted


def test_it_sends_everything_after_a_crash_mid_send_repeating_only_the_message_in_flight(
    tmp_path, stack, scratch_database_url
):
    env, inbox, hook = stack
    worker, log = _run_until_held(tmp_path, env, scratch_database_url, hook)
    os.killpg(worker.pid, signal.SIGKILL)  # the worker and its pool, as a crash would
    worker.wait(timeout=30)
    hook.release.set()

    in_flight = _in_flight(hook)
    # The receiver has it, but the dead worker never recorded it: it is still claimed.
    assert _outbox(scratch_database_url, f"id = {in_flight} AND sent_at IS NULL") == 1
    assert _outbox(scratch_database_url, f"id = {in_flight} AND claimed_until IS NOT NULL") == 1
    # With more than one delivery process, another send may have been answered and not
    # yet recorded when the worker died: it was in flight too.
    also_in_flight = {
        message
        for message in {*hook.arrivals, *inbox.message_ids} - {f"lookout-{in_flight}"}
        if _outbox(scratch_database_url, f"id = {message.removeprefix('lookout-')} "
                   "AND sent_at IS NULL") == 1
    }  # fmt: skip
    _restart_and_deliver(tmp_path, env, scratch_database_url, inbox, hook)

    every = _every_message(scratch_database_url)
    webhooks, mails = Counter(hook.arrivals), Counter(inbox.message_ids)
    assert set(webhooks) | set(mails) == every
    # The repeat carries the same message id, so the receiver can drop it.
    assert webhooks.pop(f"lookout-{in_flight}") == 2
    for message in also_in_flight:
        assert (webhooks.pop(message, 0) + mails.pop(message, 0)) == 2, message
    assert set(webhooks.values()) <= {1}, webhooks
    assert set(mails.values()) <= {1}, mails
