"""Command-line options of the simulator, as one frozen dataclass."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class SimulatorConfig:
    workflow_port: int = 8001
    storage_port: int = 8002
    host: str = "127.0.0.1"
    units: int = 40
    packages: int = 200
    latency_ms: int = 0
    seed: int = 1
    speed: float = 1.0
    user: str = "demo"
    key: str = "demo-key"
    error_rate: float = 0.0
    timeout_rate: float = 0.0
    malformed_rate: float = 0.0
    timeout_seconds: float = 30.0
    # Simulated "now" at start; None means the real current time. A fixed
    # value makes every timestamp repeatable across runs.
    start: datetime | None = None
    # Answer as storage service releases before 0.17 did (big integers such as
    # package sizes and location usage sent as strings). Off: as release 0.23.0.
    legacy_quirks: bool = False
    # New transfers arriving per simulated hour (0: none, the tests' default). With
    # arrivals on, finished units that arrived after the start age out of the
    # simulator `age_out_minutes` after finishing, so the demo never runs dry and its
    # memory stays flat.
    arrivals_per_hour: float = 0.0
    # Extra transfers arriving together in a burst, about once a simulated hour.
    arrival_burst: int = 0
    age_out_minutes: float = 60.0
    # Days of back-dated finished work before the start (0: none, the tests' default),
    # about `history_per_day` transfers a working day, with their SIPs, AIPs and DIPs.
    history_days: float = 0.0
    history_per_day: float = 40.0
    # The account of the service's own dashboard (its web UI: status lists, decisions).
    dashboard_user: str = "demo"
    dashboard_password: str = "demo-password"
    # Dashboard sessions end this many seconds after sign-in (Django's default: two weeks),
    # or after this many seconds unused (0: never).
    session_max_age: float = 1209600.0
    session_idle_seconds: float = 0.0
    # While the job server is down: how long the status lists and an approval wait before
    # giving up (the real service: 30 s), and how long `/status/` and `/mcp/execute/` hang
    # before a 504.
    job_server_wait_seconds: float = 0.2
    job_server_hang_seconds: float = 60.0
    # Workflow services (pipelines) beside the one storage service. Pipeline 1 listens on
    # `workflow_port`; the others on `extra_workflow_ports`, or (when that is empty) on
    # the ports after `storage_port`, or on free ports when `workflow_port` is 0.
    pipelines: int = 1
    extra_workflow_ports: tuple[int, ...] = ()
    # How fast each pipeline works through its units, as a factor of the clock (1: as
    # pipeline 1; 0.5: every job takes twice as long). Missing entries are 1.
    pipeline_speeds: tuple[float, ...] = ()
    # Items of the folder `batch/` in the default transfer source (0: no such folder).
    source_items: int = 0
    # New items appearing in `batch/` per simulated hour, evenly spaced (0: none), so a
    # watched ingest run in the demo always has more to do.
    source_items_per_hour: float = 0.0

    def workflow_ports(self) -> list[int]:
        """The port of each pipeline's workflow service, pipeline 1 first."""
        extra = list(self.extra_workflow_ports[: self.pipelines - 1])
        for number in range(len(extra) + 2, self.pipelines + 1):
            extra.append(0 if self.workflow_port == 0 else self.storage_port + number - 1)
        return [self.workflow_port, *extra]

    def pipeline_speed(self, number: int) -> float:
        """The pace factor of pipeline `number` (1-based)."""
        if number <= len(self.pipeline_speeds):
            return self.pipeline_speeds[number - 1]
        return 1.0


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction between 0 and 1")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must not be negative")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must not be negative")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return value


def _port_list(text: str) -> tuple[int, ...]:
    return tuple(_non_negative_int(part) for part in text.split(",") if part.strip())


def _speed_list(text: str) -> tuple[float, ...]:
    speeds = tuple(float(part) for part in text.split(",") if part.strip())
    if any(speed <= 0 for speed in speeds):
        raise argparse.ArgumentTypeError(f"{text}: every speed must be above 0")
    return speeds


def _naive_utc(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


DESCRIPTION = "Fake workflow and storage services for the demo and the tests."


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m simulator", description=DESCRIPTION)
    add_simulator_arguments(parser)
    return parser


def add_simulator_arguments(parser: argparse.ArgumentParser) -> None:
    """The simulator's options, shared by the CLI and the `simulate` management command."""
    defaults = SimulatorConfig()
    add = parser.add_argument
    add(
        "--workflow-port",
        type=_non_negative_int,
        default=defaults.workflow_port,
        help="port of the workflow service (0 picks a free port)",
    )
    add(
        "--storage-port",
        type=_non_negative_int,
        default=defaults.storage_port,
        help="port of the storage service (0 picks a free port)",
    )
    add("--host", default=defaults.host, help="address to listen on")
    add(
        "--units",
        type=_non_negative_int,
        default=defaults.units,
        help="historical transfers to seed",
    )
    add(
        "--packages",
        type=_non_negative_int,
        default=defaults.packages,
        help="historical packages to seed in storage",
    )
    add(
        "--latency-ms",
        type=_non_negative_int,
        default=defaults.latency_ms,
        help="delay added to every request",
    )
    add("--seed", type=int, default=defaults.seed, help="seed of all generated data")
    add(
        "--speed",
        type=_non_negative_float,
        default=defaults.speed,
        help="simulated seconds per real second (0 freezes simulated time)",
    )
    add("--user", default=defaults.user, help="API user name")
    add("--key", default=defaults.key, help="API key")
    add(
        "--error-rate",
        type=_fraction,
        default=defaults.error_rate,
        help="fraction of requests answered with a 500",
    )
    add(
        "--timeout-rate",
        type=_fraction,
        default=defaults.timeout_rate,
        help="fraction of requests that hang for --timeout-seconds",
    )
    add(
        "--malformed-rate",
        type=_fraction,
        default=defaults.malformed_rate,
        help="fraction of requests answered with garbled JSON",
    )
    add(
        "--timeout-seconds",
        type=_non_negative_float,
        default=defaults.timeout_seconds,
        help="how long a 'timed out' request hangs",
    )
    add(
        "--start",
        type=_naive_utc,
        default=None,
        help="simulated start time, ISO 8601 naive UTC (default: now)",
    )
    add(
        "--legacy-quirks",
        action="store_true",
        default=defaults.legacy_quirks,
        help="answer as storage service releases before 0.17 (numbers sent as strings)",
    )
    add(
        "--arrivals-per-hour",
        type=_non_negative_float,
        default=defaults.arrivals_per_hour,
        help="new transfers arriving per simulated hour (default 0: none)",
    )
    add(
        "--arrival-burst",
        type=_non_negative_int,
        default=defaults.arrival_burst,
        help="transfers arriving together in a burst, about once a simulated hour",
    )
    add(
        "--age-out-minutes",
        type=_non_negative_float,
        default=defaults.age_out_minutes,
        help="with arrivals on: simulated minutes a finished new unit stays listed",
    )
    add(
        "--history-days",
        type=_non_negative_float,
        default=defaults.history_days,
        help="days of back-dated finished transfers, SIPs and AIPs (default 0: none)",
    )
    add(
        "--history-per-day",
        type=_non_negative_float,
        default=defaults.history_per_day,
        help=f"transfers a working day in that history (default {defaults.history_per_day:g})",
    )
    add_dashboard_arguments(parser)
    add_pipeline_arguments(parser)


def add_pipeline_arguments(parser: argparse.ArgumentParser) -> None:
    """Options for several workflow services and a folder of items to ingest."""
    defaults = SimulatorConfig()
    add = parser.add_argument
    add(
        "--pipelines",
        type=_positive_int,
        default=defaults.pipelines,
        help="workflow services beside the one storage service (default 1)",
    )
    add(
        "--extra-workflow-ports",
        type=_port_list,
        default=defaults.extra_workflow_ports,
        help="comma-separated ports of pipelines 2, 3, ... (default: the ports after "
        "--storage-port, or free ports when --workflow-port is 0)",
    )
    add(
        "--pipeline-speeds",
        type=_speed_list,
        default=defaults.pipeline_speeds,
        help="comma-separated pace of each pipeline (1: normal, 0.5: jobs take twice as "
        "long; default 1 each)",
    )
    add(
        "--source-items",
        type=_non_negative_int,
        default=defaults.source_items,
        help="items (folders and a few zip files) in the folder batch/ of the default "
        "transfer source (default 0: no such folder)",
    )
    add(
        "--source-items-per-hour",
        type=_non_negative_float,
        default=defaults.source_items_per_hour,
        help="new items appearing in batch/ per simulated hour (default 0: none)",
    )


def add_dashboard_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the service's own dashboard and its job server."""
    defaults = SimulatorConfig()
    add = parser.add_argument
    add("--dashboard-user", default=defaults.dashboard_user, help="dashboard account name")
    add(
        "--dashboard-password",
        default=defaults.dashboard_password,
        help="dashboard account password",
    )
    add(
        "--session-max-age",
        type=_non_negative_float,
        default=defaults.session_max_age,
        help="seconds a dashboard session lasts after sign-in",
    )
    add(
        "--session-idle-seconds",
        type=_non_negative_float,
        default=defaults.session_idle_seconds,
        help="seconds unused after which a dashboard session ends (0: never)",
    )
    add(
        "--job-server-wait-seconds",
        type=_non_negative_float,
        default=defaults.job_server_wait_seconds,
        help="job server down: wait before the status lists' mcp:false and the approve 500 "
        "(the real service: 30)",
    )
    add(
        "--job-server-hang-seconds",
        type=_non_negative_float,
        default=defaults.job_server_hang_seconds,
        help="job server down: how long /status/ and /mcp/execute/ hang before a 504",
    )


def config_from_args(argv: Sequence[str] | None = None) -> SimulatorConfig:
    return config_from_options(vars(build_arg_parser().parse_args(argv)))


def config_from_options(options: Mapping[str, Any]) -> SimulatorConfig:
    """Pick the simulator's settings out of parsed options (extra keys are ignored)."""
    names = {field.name for field in fields(SimulatorConfig)}
    return SimulatorConfig(**{name: value for name, value in options.items() if name in names})
