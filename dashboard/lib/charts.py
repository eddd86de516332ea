"""Charts drawn on the server as SVG: bars by period, bars by name, and lines.

No JavaScript: colours come from CSS classes (and so follow dark mode), every text is
escaped by `format_html`, and each chart carries a title and a one-line description;
the page puts the same numbers in a table beside it for screen readers. A value of
None is a period Lookout did not cover: drawn as a hatched, labelled placeholder,
never as a zero.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

WIDTH = 640
HEIGHT = 180
BAR_ROW = 22
LABEL_WIDTH = 260


def _n(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _svg(width: int, height: int, title: str, desc: str, body: SafeString) -> SafeString:
    return format_html(
        '<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" '
        'role="img" aria-label="{}" focusable="false"><title>{}</title><desc>{}</desc>{}</svg>',
        width,
        height,
        title,
        title,
        desc,
        body,
    )


def column_chart(
    values: Sequence[float | None], labels: Sequence[str], *, title: str, desc: str
) -> SafeString:
    """One column per period; None is drawn as "not covered"."""
    top = max([v for v in values if v is not None] + [0.0])
    count = max(1, len(values))
    step = WIDTH / count
    gap = min(2.0, step * 0.2)
    usable = HEIGHT - 4
    parts = []
    for index, (value, label) in enumerate(zip(values, labels, strict=True)):
        x = index * step + gap / 2
        if value is None:
            parts.append(
                format_html(
                    '<rect class="chart-uncovered" x="{}" y="0" width="{}" height="{}">'
                    "<title>{}: not covered</title></rect>",
                    _n(x),
                    _n(step - gap),
                    HEIGHT,
                    label,
                )
            )
            continue
        height = usable * value / top if top else 0.0
        parts.append(
            format_html(
                '<rect class="chart-bar" x="{}" y="{}" width="{}" height="{}">'
                "<title>{}: {}</title></rect>",
                _n(x),
                _n(HEIGHT - height),
                _n(step - gap),
                _n(height),
                label,
                _n(value),
            )
        )
    parts.append(
        format_html(
            '<line class="chart-axis" x1="0" y1="{}" x2="{}" y2="{}"/>', HEIGHT, WIDTH, HEIGHT
        )
    )
    return _svg(WIDTH, HEIGHT, title, desc, SafeString("".join(parts)))


def bar_chart(
    rows: Sequence[tuple[str, float | None, float | None, bool]], *, title: str, desc: str
) -> SafeString:
    """One horizontal bar per name: (name, value, upper mark, highlighted).

    The bar is the value (a median, a rate); the tick the upper mark (a 90th percentile).
    """
    top = max([max(v or 0.0, m or 0.0) for _, v, m, _ in rows] + [0.0])
    height = max(BAR_ROW, BAR_ROW * len(rows))
    usable = WIDTH - LABEL_WIDTH - 8
    parts = []
    for index, (name, value, mark, marked) in enumerate(rows):
        y = index * BAR_ROW
        length = usable * (value or 0.0) / top if top else 0.0
        parts.append(
            format_html(
                '<text class="chart-label" x="{}" y="{}" text-anchor="end">{}</text>'
                '<rect class="{}" x="{}" y="{}" width="{}" height="{}"/>',
                LABEL_WIDTH - 6,
                y + 15,
                name if len(name) <= 40 else name[:39] + "…",
                "chart-bar chart-marked" if marked else "chart-bar",
                LABEL_WIDTH,
                y + 4,
                _n(length),
                BAR_ROW - 8,
            )
        )
        if mark is not None and top:
            x = LABEL_WIDTH + usable * mark / top
            parts.append(
                format_html(
                    '<line class="chart-mark" x1="{}" y1="{}" x2="{}" y2="{}"/>',
                    _n(x),
                    y + 2,
                    _n(x),
                    y + BAR_ROW - 2,
                )
            )
    return _svg(WIDTH, height, title, desc, SafeString("".join(parts)))


def line_chart(
    series: Sequence[tuple[str, Sequence[float | None]]], *, title: str, desc: str
) -> SafeString:
    """Lines over time, one CSS class per series (`chart-line-0`, `-1`...); gaps where
    a value is None (not covered)."""
    numbers = [v for _, values in series for v in values if v is not None]
    top = max(numbers + [0.0])
    length = max((len(values) for _, values in series), default=0)
    step = WIDTH / max(1, length - 1)
    usable = HEIGHT - 6
    parts = []
    for index, (_name, values) in enumerate(series):
        segment: list[str] = []
        segments: list[list[str]] = []
        for position, value in enumerate(values):
            if value is None:
                if segment:
                    segments.append(segment)
                segment = []
                continue
            y = HEIGHT - 3 - (usable * value / top if top else 0.0)
            segment.append(f"{_n(position * step)},{_n(y)}")
        if segment:
            segments.append(segment)
        parts.append(
            format_html_join(
                "",
                '<polyline class="chart-line chart-line-{}" points="{}" fill="none"/>',
                (
                    (index, " ".join(points if len(points) > 1 else points * 2))
                    for points in segments
                ),
            )
        )
    parts.append(
        format_html(
            '<line class="chart-axis" x1="0" y1="{}" x2="{}" y2="{}"/>', HEIGHT, WIDTH, HEIGHT
        )
    )
    return _svg(WIDTH, HEIGHT, title, desc, SafeString("".join(parts)))
