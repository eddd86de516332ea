"""Test-control endpoints under `/_simulator/` on the workflow port.

Not part of either service: no auth, never faulted. They let tests and the
demo read the simulation's state, move simulated time on and change the
fault rates while the process runs, or stop simulated time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from simulator.units import NoJobsYet
from simulator.wsgi import Request, Response, Router, json_response


def _error(message: str) -> Response:
    return json_response({"error": True, "message": message}, 400)


def add_control_routes(router: Router, sim: Any) -> None:
    def state_body() -> dict[str, Any]:
        now = sim.sync()
        with sim.lock:
            return {
                "now": now.isoformat(timespec="seconds"),
                "units": sim.workflow.counts(now),
                "packages": sim.storage.package_count(),
                "arrived": 0 if sim.workflow.arrivals is None else sim.workflow.arrivals.count,
                "aged_out": sim.workflow.aged_out,
                "held_units": len(sim.workflow.units),
                "dropped_packages": sim.storage.dropped_packages,
                "pipeline": sim.number,
                "pipeline_uuid": sim.workflow.pipeline_uuid,
                # Valid `<location uuid>:<path>` pairs, for starting transfers.
                "transfer_sources": sim.storage.transfer_source_paths(sim.pipeline)[:20],
            }

    def state(request: Request) -> Response:
        return json_response(state_body())

    def clock_change(
        request: Request, key: str, refusal: str, change: Callable[[float], None]
    ) -> Response:
        """POST {key: N} with N >= 0, applied to the clock; the state after it."""
        try:
            value = float(request.json()[key])
        except (ValueError, KeyError, TypeError):
            return _error(f'Send JSON {{"{key}": N}}.')
        if value < 0:
            return _error(refusal)
        change(value)
        return json_response(state_body())

    def advance(request: Request) -> Response:
        """POST {"seconds": N}: move simulated time on by N seconds."""
        return clock_change(request, "seconds", "The clock only moves forward.", sim.clock.advance)

    def speed(request: Request) -> Response:
        """POST {"speed": N}: simulated seconds per real second from now on; 0 stops time,
        so a test can compare a client's picture with a state that no longer moves."""
        return clock_change(
            request, "speed", "The speed must not be negative.", sim.clock.set_speed
        )

    def faults(request: Request) -> Response:
        """GET the fault rates, or POST any of error_rate, timeout_rate, malformed_rate."""
        if request.method == "POST":
            try:
                changes = request.json()
                if not isinstance(changes, dict):
                    raise ValueError("Send a JSON object.")
                sim.faults.update(changes)
            except ValueError as exc:
                return _error(str(exc))
        return json_response(sim.faults.as_dict())

    def actions(request: Request) -> Response:
        """Every operation a client asked for that took effect: action, target, time."""
        with sim.lock:
            return json_response({"actions": list(sim.actions)})

    def starts(request: Request) -> Response:
        """Every transfer start any workflow service took: how many in all, per pipeline
        (by number) and per name, and each start in order."""
        with sim.lock:
            taken = list(sim.starts)
        by_pipeline = Counter(str(start["pipeline"]) for start in taken)
        return json_response(
            {
                "total": len(taken),
                "by_pipeline": {str(s.number): by_pipeline[str(s.number)] for s in sim.services},
                "by_name": dict(Counter(start["name"] for start in taken)),
                "starts": taken,
            }
        )

    def pipelines(request: Request) -> Response:
        """The simulated pipelines: number, storage service UUID and pace."""
        with sim.lock:
            listed = [
                {"number": s.number, "uuid": s.pipeline.uuid, "speed": s.speed}
                for s in sim.services
            ]
        return json_response({"pipelines": listed})

    def units(request: Request) -> Response:
        """The status of every unit the workflow service lists, as its status calls say."""
        now = sim.sync()
        with sim.lock:
            seconds = sim.workflow.seconds(now)
            listed = []
            for unit in sim.workflow.visible_units():
                try:
                    status = unit.status(seconds)["status"]
                except NoJobsYet:
                    continue
                listed.append({"uuid": unit.uuid, "kind": unit.kind, "status": status})
        return json_response({"now": now.isoformat(timespec="seconds"), "units": listed})

    def job_server(request: Request) -> Response:
        """GET the job server's state, or POST any of {"up": bool, "wait_seconds",
        "hang_seconds", "slow_seconds": N}; coming back up carries out queued answers."""
        if request.method == "POST":
            try:
                changes = request.json()
                if not isinstance(changes, dict):
                    raise ValueError("Send a JSON object.")
                sim.job_server.update(changes, sim.carry_out)
            except ValueError as exc:
                return _error(str(exc))
        return json_response(sim.job_server.as_dict())

    def expire_sessions(request: Request) -> Response:
        """POST: end every dashboard session, as if each had timed out."""
        return json_response({"expired": sim.sessions.expire_all()})

    router.add("/_simulator/mcp/?", {"GET": job_server, "POST": job_server})
    router.add("/_simulator/sessions/expire/?", {"POST": expire_sessions})
    router.add("/_simulator/state/?", {"GET": state})
    router.add("/_simulator/actions/?", {"GET": actions})
    router.add("/_simulator/starts/?", {"GET": starts})
    router.add("/_simulator/pipelines/?", {"GET": pipelines})
    router.add("/_simulator/units/?", {"GET": units})
    router.add("/_simulator/advance/?", {"POST": advance})
    router.add("/_simulator/speed/?", {"POST": speed})
    router.add("/_simulator/faults/?", {"GET": faults, "POST": faults})
