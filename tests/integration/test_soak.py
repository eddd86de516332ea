"""The soak, short: `bench/soak.py` for about a minute with a few users against the
simulator's 5 % errors, 1 % time-outs and 1 % garbled answers. No 5xx, every confirmed
action exactly once upstream, and Lookout agrees with the service two poll intervals
after the faults stop. Latency is the 30-minute run's business (BENCHMARKS.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(900)
def test_a_short_soak_loses_and_doubles_nothing_answers_no_5xx_and_converges(tmp_path):
    out = tmp_path / "soak.json"
    done = subprocess.run(
        [
            sys.executable, "bench/soak.py", "--users", "12", "--admins", "3",
            "--minutes", "1.25", "--poll", "5", "--feed-every", "8",
            "--units", "20", "--packages", "60",
            "--no-latency-target", "--json", str(out),
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=840,
    )  # fmt: skip
    assert out.exists(), done.stderr[-3000:]
    report = json.loads(out.read_text())
    actions = report["actions"]

    assert report["server_errors"] == 0, report["server_error_samples"]
    # Admins did act, and double submits were among what they sent.
    assert actions["forms"] >= 3 and actions["upstream"] >= 1
    assert actions["double_submits"] >= 1
    assert actions["lost"] == [] and actions["doubled"] == []
    assert actions["misreported"] == [] and actions["unrecorded"] == []
    assert actions["stray"] == []
    assert report["convergence"]["units"] > 0
    assert report["convergence"]["behind"] == []
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
