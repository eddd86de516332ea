"""Sparklines drawn on the server: a small inline SVG and a sentence that says the same.

No JavaScript and no chart library: the wall swaps whole fragments, so a chart that is
plain markup costs the browser nothing to replace. Every piece of text is escaped and
every number is formatted by us, so nothing from the data can become markup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext

DEFAULT_WIDTH = 240
DEFAULT_HEIGHT = 60
# Keeps the stroke inside the view box at the top and bottom.
PADDING = 3.0


@dataclass(frozen=True)
class Sparkline:
    svg: SafeString
    text: str


def _checked(values: Sequence[float]) -> list[float]:
    checked = []
    for value in values:
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"a sparkline needs finite numbers, not {value!r}")
        checked.append(number)
    return checked


def _number(value: float) -> str:
    """Coordinates with two decimals at most, without trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _count(value: float) -> str:
    return f"{value:g}"


def sparkline_points(
    values: Sequence[float], *, width: float = DEFAULT_WIDTH, height: float = DEFAULT_HEIGHT
) -> list[tuple[float, float]]:
    """Where each value goes: evenly spread left to right, the largest at the top.

    The baseline is zero (or the smallest value, if negative), so an hour with nothing
    done sits on the bottom edge. A single value is drawn as a flat line across.
    """
    numbers = _checked(values)
    if not numbers:
        return []
    low = min(0.0, min(numbers))
    high = max(numbers)
    span = high - low
    usable = height - 2 * PADDING
    if len(numbers) == 1:
        numbers = numbers * 2
    step = width / (len(numbers) - 1)
    points = []
    for index, number in enumerate(numbers):
        share = (number - low) / span if span else 0.0
        points.append((index * step, height - PADDING - share * usable))
    return points


def sparkline_text(values: Sequence[float]) -> str:
    """The chart of completions per hour as a sentence, for screen readers and for anyone
    who cannot see colour, in the active language."""
    numbers = _checked(values)
    if not numbers:
        return gettext("No completions recorded yet.")
    total = sum(numbers)
    return ngettext(
        "%(total)s completion over the last %(hours)s hours; busiest hour: %(busiest)s; "
        "latest hour: %(latest)s.",
        "%(total)s completions over the last %(hours)s hours; busiest hour: %(busiest)s; "
        "latest hour: %(latest)s.",
        int(total),
    ) % {
        "total": _count(total),
        "hours": len(numbers),
        "busiest": _count(max(numbers)),
        "latest": _count(numbers[-1]),
    }


def sparkline_svg(
    values: Sequence[float],
    *,
    title: str,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> Sparkline:
    """An inline SVG (role img, with title and description) scaled by CSS to its box."""
    text = sparkline_text(values)
    points = sparkline_points(values, width=width, height=height)
    if not points:
        points = [(0.0, height - PADDING), (float(width), height - PADDING)]
    line = " ".join(f"{_number(x)},{_number(y)}" for x, y in points)
    area = (
        f"M0,{_number(height)} "
        + " ".join(f"L{_number(x)},{_number(y)}" for x, y in points)
        + f" L{_number(width)},{_number(height)} Z"
    )
    last_x, last_y = points[-1]
    svg = format_html(
        '<svg class="sparkline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" '
        'preserveAspectRatio="none" role="img" aria-label="{}: {}" focusable="false">'
        "<title>{}</title><desc>{}</desc>"
        '<path class="sparkline-area" d="{}"/>'
        '<polyline class="sparkline-line" points="{}" fill="none" '
        'vector-effect="non-scaling-stroke"/>'
        '<path class="sparkline-last" d="M{},{} h0" vector-effect="non-scaling-stroke"/>'
        "</svg>",
        width,
        height,
        title,
        text,
        title,
        text,
        area,
        line,
        _number(last_x),
        _number(last_y),
    )
    return Sparkline(svg=svg, text=text)
