"""The status lists' interval: cheap for the service, and a fraction of one dashboard tab."""

import pytest

from dashboard.lib.dashboard_source import TAB_PAUSE_SECONDS, list_interval_seconds


def tab_bytes_per_second(list_seconds: float, list_bytes: float) -> float:
    """One open tab of the service's dashboard reads the transfer list again
    TAB_PAUSE_SECONDS after each answer."""
    return list_bytes / (list_seconds + TAB_PAUSE_SECONDS)


@pytest.mark.parametrize("list_seconds", [0.05, 0.5, 2.0, 3.4, 4.0, 20.0, 60.0])
def test_two_lists_cost_under_half_of_one_dashboard_tab_at_any_answer_time(list_seconds):
    size = 11_700_000  # one list at 1,013 transfers
    interval = list_interval_seconds(answered_in=2 * list_seconds, minimum=30)

    lookout = 2 * size / interval
    assert lookout <= 0.5 * tab_bytes_per_second(list_seconds, size)


def test_it_waits_ten_times_a_slow_answer():
    assert list_interval_seconds(answered_in=40, minimum=30) == 400


def test_a_configured_minimum_above_the_rule_wins():
    assert list_interval_seconds(answered_in=1, minimum=300) == 300


def test_a_fast_answer_still_waits_longer_than_the_minimum_of_thirty_seconds():
    assert list_interval_seconds(answered_in=0.1, minimum=30) > 30
