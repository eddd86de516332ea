"""Simulated time can be stopped and restarted without a jump, in-process and over the
control API (the soak stops it to compare Lookout with a state that no longer moves)."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from simulator.clock import SimClock
from tests.support.simulator_process import SimulatorProcess

START = datetime(2026, 1, 1, 12, 0, 0)


def test_a_stopped_clock_stays_where_it_was():
    clock = SimClock(1000.0, START)
    time.sleep(0.01)
    clock.set_speed(0)
    stopped = clock.now()
    time.sleep(0.02)

    assert clock.now() == stopped
    assert stopped > START


def test_a_clock_restarted_goes_on_from_where_it_stopped():
    clock = SimClock(0, START)
    clock.advance(60)
    clock.set_speed(1000.0)
    time.sleep(0.01)

    elapsed = (clock.now() - START).total_seconds()
    assert 60 + 5 < elapsed < 60 + 1000


def test_a_negative_speed_is_refused():
    clock = SimClock(1.0, START)
    with pytest.raises(ValueError):
        clock.set_speed(-1)


@pytest.mark.integration
def test_the_control_api_stops_simulated_time():
    with SimulatorProcess(units=3, packages=0, seed=2, speed=100) as sim:
        sim.control("speed", {"speed": 0})
        first = sim.control("state")["now"]
        time.sleep(1.1)

        assert sim.control("state")["now"] == first
