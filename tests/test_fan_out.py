"""Many blocking calls over a few threads: order, bound, failure and cancel."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from dashboard.lib.fan_out import FanOut


def test_it_gives_every_answer_in_the_items_order():
    with ThreadPoolExecutor(8) as pool:
        results = FanOut(pool, lambda n: n * n, list(range(500)), workers=8).results()
    assert results == [(n, n * n) for n in range(500)]


def test_no_more_calls_are_under_way_than_workers():
    running, most = 0, 0
    lock = threading.Lock()

    def call(item: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.002)
        with lock:
            running -= 1
        return item

    with ThreadPoolExecutor(16) as pool:
        FanOut(pool, call, list(range(100)), workers=4).results()
    assert most == 4


def _breaks_at(broken: int, calls: list[int]) -> Callable[[int], int]:
    """A call that takes a millisecond, and raises for the item `broken`."""

    def call(item: int) -> int:
        calls.append(item)
        if item == broken:
            raise ValueError("broken")
        time.sleep(0.001)
        return item

    return call


def test_a_failing_call_stops_the_others_and_comes_out_of_results():
    calls: list[int] = []

    with ThreadPoolExecutor(2) as pool:
        fan_out = FanOut(pool, _breaks_at(3, calls), list(range(1000)), workers=2)
        with pytest.raises(ValueError, match="broken"):
            fan_out.results()
    assert len(calls) < 10


def test_a_cancelled_fan_out_takes_no_more_items():
    started = threading.Event()
    release = threading.Event()
    calls = []

    def call(item: int) -> int:
        calls.append(item)
        started.set()
        release.wait(5)
        return item

    with ThreadPoolExecutor(3) as pool:
        fan_out = FanOut(pool, call, list(range(100)), workers=3)
        started.wait(5)
        fan_out.cancel()
        release.set()
    assert len(calls) <= 3
    with pytest.raises(RuntimeError, match="cancelled"):
        fan_out.results()


def test_nothing_to_do_starts_no_task():
    with ThreadPoolExecutor(2) as pool:
        assert FanOut(pool, lambda n: n, [], workers=2).results() == []


def test_answers_come_out_in_batches_as_they_come_in_each_once():
    release = [threading.Event() for _ in range(10)]

    def call(item: int) -> int:
        if item >= 4:
            release[item].wait(5)
        return item

    with ThreadPoolExecutor(10) as pool:
        fan_out = FanOut(pool, call, list(range(10)), workers=10)
        first = fan_out.completed(at_least=4)
        assert sorted(item for item, _ in first) == [0, 1, 2, 3]
        assert not fan_out.all_handed_out
        for event in release:
            event.set()
        rest = fan_out.completed(at_least=100)
    assert sorted(item for item, _ in rest) == list(range(4, 10))
    assert all(item == answer for item, answer in first + rest)
    assert fan_out.all_handed_out


def test_a_call_that_fails_while_batches_are_awaited_comes_out_of_completed():
    with ThreadPoolExecutor(2) as pool:
        fan_out = FanOut(pool, _breaks_at(2, []), list(range(50)), workers=2)
        with pytest.raises(ValueError, match="broken"):
            while not fan_out.all_handed_out:
                fan_out.completed(at_least=10)
