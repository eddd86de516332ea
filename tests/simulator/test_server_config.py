"""Simulator options: the CLI, the management command and the process helper."""

from __future__ import annotations

from datetime import datetime

import pytest

from dashboard.management.commands.simulate import Command
from simulator.config import SimulatorConfig, config_from_args, config_from_options
from tests.support.simulator_process import SimulatorProcess, SimulatorStartError


def test_the_defaults_match_the_documented_ones() -> None:
    config = config_from_args([])

    assert config == SimulatorConfig()
    assert (config.workflow_port, config.storage_port, config.host) == (8001, 8002, "127.0.0.1")
    assert (config.units, config.packages, config.seed, config.speed) == (40, 200, 1, 1.0)
    assert (config.user, config.key, config.timeout_seconds) == ("demo", "demo-key", 30.0)
    assert config.legacy_quirks is False


def test_every_option_reaches_the_config() -> None:
    config = config_from_args(
        [
            "--workflow-port",
            "0",
            "--storage-port",
            "0",
            "--host",
            "0.0.0.0",
            "--units",
            "7",
            "--packages",
            "9",
            "--latency-ms",
            "15",
            "--seed",
            "42",
            "--speed",
            "20",
            "--user",
            "alice",
            "--key",
            "secret",
            "--error-rate",
            "0.1",
            "--timeout-rate",
            "0.2",
            "--malformed-rate",
            "0.3",
            "--timeout-seconds",
            "2.5",
            "--start",
            "2024-02-03T04:05:06",
            "--legacy-quirks",
        ]
    )

    assert config == SimulatorConfig(
        workflow_port=0,
        storage_port=0,
        host="0.0.0.0",
        units=7,
        packages=9,
        latency_ms=15,
        seed=42,
        speed=20.0,
        user="alice",
        key="secret",
        error_rate=0.1,
        timeout_rate=0.2,
        malformed_rate=0.3,
        timeout_seconds=2.5,
        start=datetime(2024, 2, 3, 4, 5, 6),
        legacy_quirks=True,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--error-rate", "1.5"],
        ["--timeout-rate", "-0.1"],
        ["--units", "-1"],
        ["--speed", "-2"],
    ],
)
def test_out_of_range_options_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        config_from_args(argv)


def test_the_management_command_takes_the_same_options() -> None:
    parser = Command().create_parser("manage.py", "simulate")
    options = vars(parser.parse_args(["--units", "12", "--error-rate", "0.5", "--verbosity", "2"]))

    assert config_from_options(options) == SimulatorConfig(units=12, error_rate=0.5)


def test_the_process_helper_passes_a_switch_without_a_value() -> None:
    command = SimulatorProcess(legacy_quirks=True, seed=3).command()
    plain = SimulatorProcess(legacy_quirks=False).command()

    assert command[-3:] == ["--legacy-quirks", "--seed", "3"]
    assert "--legacy-quirks" not in plain


@pytest.mark.integration
def test_a_simulator_that_cannot_start_says_why() -> None:
    with pytest.raises(SimulatorStartError, match="must not be negative"):
        SimulatorProcess(units=-1).start()


@pytest.mark.integration
def test_a_client_reuses_one_connection_for_several_requests():
    import http.client

    from tests.support.simulator_process import SimulatorProcess

    with SimulatorProcess(units=3, packages=3, seed=1) as sim:
        host, port = sim.workflow_url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        statuses = []
        for _ in range(3):
            connection.request("GET", "/api/transfer/completed/", headers=sim.auth_header)
            response = connection.getresponse()
            response.read()
            statuses.append((response.status, response.version, response.will_close))
        connection.close()

    assert statuses == [(200, 11, False)] * 3
