"""Demo arrivals: new transfers keep coming over simulated hours, and finished ones age out."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

START = "2024-06-03T09:00:00"
STEP = 10 * 60  # simulated seconds between looks


def arrivals(**options: Any) -> SimulatorProcess:
    settings = {
        "units": 0,
        "packages": 5,
        "seed": 5,
        "speed": 0,
        "start": START,
        "arrivals_per_hour": 30,
        "arrival_burst": 5,
        "age_out_minutes": 60,
    }
    return SimulatorProcess(**{**settings, **options})


def get(sim: SimulatorProcess, path: str) -> Any:
    response = requests.get(sim.workflow_url + path, headers=sim.auth_header, timeout=10)
    return response


def advance(sim: SimulatorProcess, seconds: float) -> dict[str, Any]:
    state: dict[str, Any] = sim.control("advance", {"seconds": seconds})
    return state


def test_new_transfers_keep_arriving_and_some_wait_fail_or_go_to_backlog() -> None:
    with arrivals() as sim:
        arrived_by_hour = []
        statuses: set[str] = set()
        unapproved_seen: dict[str, dict[str, str]] = {}
        completed_transfers: set[str] = set()
        approved = None
        for step in range(1, 6 * 6 + 1):
            state = advance(sim, STEP)
            statuses.update(state["units"])
            for entry in get(sim, "/api/transfer/unapproved").json()["results"]:
                unapproved_seen[entry["uuid"]] = entry
            completed_transfers.update(get(sim, "/api/transfer/completed").json()["results"])
            if approved is None and unapproved_seen:
                # A Lookout user approves one that is waiting.
                entry = next(iter(unapproved_seen.values()))
                answer = requests.post(
                    sim.workflow_url + "/api/transfer/approve",
                    data={"type": entry["type"], "directory": entry["directory"]},
                    headers=sim.auth_header,
                    timeout=10,
                )
                if answer.status_code == 200:
                    approved = answer.json()["uuid"]
                    waiting = get(sim, "/api/transfer/unapproved").json()["results"]
                    assert approved not in {item["uuid"] for item in waiting}
            if step % 6 == 0:
                arrived_by_hour.append(state["arrived"])

        # New units every simulated hour, at about the rate asked for (bursts on top).
        gains = [b - a for a, b in zip([0, *arrived_by_hour], arrived_by_hour, strict=False)]
        assert all(gain >= 10 for gain in gains), gains
        assert "transfer:PROCESSING" in statuses or "SIP:PROCESSING" in statuses
        assert "transfer:FAILED" in statuses or "SIP:FAILED" in statuses
        assert "SIP:COMPLETE" in statuses
        assert unapproved_seen  # some waited for approval
        assert approved is not None
        sip_uuids = set()
        for unit_uuid in completed_transfers:
            response = get(sim, f"/api/transfer/status/{unit_uuid}")
            if response.status_code == 200:
                sip_uuids.add(response.json().get("sip_uuid"))
        assert "BACKLOG" in sip_uuids  # some went to backlog


def test_finished_units_disappear_after_their_age_out_and_memory_stays_flat() -> None:
    with arrivals() as sim:
        advance(sim, 2 * 3600)
        completed = get(sim, "/api/transfer/completed").json()["results"]
        assert completed
        first = completed[0]
        assert get(sim, f"/api/transfer/status/{first}").status_code == 200

        held = []
        for _ in range(8):
            state = advance(sim, 3600)
            held.append(state["held_units"])

        assert first not in get(sim, "/api/transfer/completed").json()["results"]
        answer = get(sim, f"/api/transfer/status/{first}")
        assert answer.status_code == 400
        assert state["aged_out"] > 0
        assert state["arrived"] > 8 * 25
        # Units held stay about level while arrivals go on.
        assert max(held) < 3 * min(held), held


def test_without_arrivals_nothing_new_appears() -> None:
    with SimulatorProcess(units=12, packages=5, seed=5, speed=0, start=START) as sim:
        before = sim.control("state")
        completed = set(get(sim, "/api/transfer/completed").json()["results"])
        state = advance(sim, 6 * 3600)

        assert state["arrived"] == 0
        assert state["aged_out"] == 0
        assert sum(state["units"].values()) >= sum(before["units"].values())
        after = set(get(sim, "/api/transfer/completed").json()["results"])
        assert completed <= after
        transfers = sum(n for kind, n in state["units"].items() if kind.startswith("transfer"))
        assert transfers == sum(
            n for kind, n in before["units"].items() if kind.startswith("transfer")
        )


def test_arrivals_are_the_same_for_the_same_seed() -> None:
    def completed_after_hours(seed: int) -> list[str]:
        with arrivals(seed=seed) as sim:
            advance(sim, 3 * 3600)
            results: list[str] = get(sim, "/api/transfer/completed").json()["results"]
            return results

    first = completed_after_hours(7)
    assert first
    assert completed_after_hours(7) == first
    assert completed_after_hours(8) != first
