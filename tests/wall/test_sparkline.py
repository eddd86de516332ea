from __future__ import annotations

import math
import re

import pytest

from dashboard.lib.sparkline import PADDING, sparkline_points, sparkline_svg, sparkline_text


def polyline_points(svg: str) -> list[tuple[float, float]]:
    found = re.search(r'<polyline[^>]* points="([^"]*)"', svg)
    assert found is not None
    return [tuple(float(n) for n in pair.split(",")) for pair in found.group(1).split()]


def test_it_spreads_values_evenly_and_puts_the_largest_at_the_top():
    points = sparkline_points([0, 5, 10], width=100, height=50)

    assert [x for x, _ in points] == [0, 50, 100]
    assert points[0][1] == 50 - PADDING  # zero sits on the bottom edge
    assert points[2][1] == PADDING  # the peak touches the top
    assert points[1][1] == pytest.approx(25)


def test_all_zero_values_draw_a_flat_line_on_the_bottom():
    points = sparkline_points([0, 0, 0, 0], width=30, height=20)

    assert {y for _, y in points} == {20 - PADDING}


def test_a_single_value_is_drawn_across_the_whole_width():
    points = sparkline_points([4], width=80, height=20)

    assert [x for x, _ in points] == [0, 80]


def test_the_svg_carries_the_same_points_as_the_values():
    svg = sparkline_svg([1, 3, 2], title="Completions", width=200, height=40).svg

    drawn = polyline_points(svg)
    expected = sparkline_points([1, 3, 2], width=200, height=40)
    assert len(drawn) == len(expected) == 3
    for (x, y), (want_x, want_y) in zip(drawn, expected, strict=True):
        assert x == pytest.approx(want_x, abs=0.01)
        assert y == pytest.approx(want_y, abs=0.01)
    assert 'viewBox="0 0 200 40"' in svg


def test_the_text_alternative_says_total_peak_and_latest():
    text = sparkline_text([0, 2, 7, 1])

    assert text == ("10 completions over the last 4 hours; busiest hour: 7; latest hour: 1.")


def test_the_svg_is_an_image_with_title_and_description():
    chart = sparkline_svg([2, 4], title="Completions per hour, Main")

    assert 'role="img"' in chart.svg
    assert "<title>Completions per hour, Main</title>" in chart.svg
    assert f"<desc>{chart.text}</desc>" in chart.svg


def test_markup_in_the_title_is_escaped():
    chart = sparkline_svg([1, 2], title='"><script>alert(1)</script><svg onload="x')

    assert "<script>" not in chart.svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in chart.svg
    assert 'onload="x' not in chart.svg
    assert chart.svg.count("<svg") == 1


def test_it_refuses_values_that_are_not_finite_numbers():
    with pytest.raises(ValueError):
        sparkline_svg([1, math.nan], title="t")
    with pytest.raises(ValueError):
        sparkline_points([math.inf])
    with pytest.raises(ValueError):
        sparkline_points(["1,1 L0"])  # text cannot sneak into the path data


def test_no_values_give_a_baseline_and_say_so():
    chart = sparkline_svg([], title="Completions", width=100, height=20)

    assert polyline_points(chart.svg) == [(0, 20 - PADDING), (100, 20 - PADDING)]
    assert chart.text == "No completions recorded yet."


def test_the_sentence_says_one_completion_not_one_completions():
    assert sparkline_text([0, 1, 0]).startswith("1 completion over the last 3 hours")
    assert sparkline_text([2, 1]).startswith("3 completions over")
