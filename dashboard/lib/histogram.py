"""A fixed histogram of durations, so medians and percentiles add up across days.

Buckets are log-spaced (each edge is the previous one times the square root of two),
from one second to about 120 days: a rollup row keeps one count per bucket, two rows
add bucket by bucket, and a percentile is read inside its bucket by interpolating in
log space. The answer is then within one bucket, at most about 41 % of the value and
usually much closer; pages say the figures are approximate.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Sequence

RATIO = math.sqrt(2)
# EDGES[i] is the lower bound of bucket i + 1; bucket 0 holds everything under a second.
EDGES: tuple[float, ...] = tuple(RATIO**i for i in range(48))
SIZE = len(EDGES) + 1


def bucket_of(seconds: float) -> int:
    return bisect_right(EDGES, max(0.0, seconds))


def bucket_bounds(index: int) -> tuple[float, float]:
    """The [low, high) seconds of a bucket (the last one is open-ended)."""
    low = 0.0 if index == 0 else EDGES[index - 1]
    high = EDGES[index] if index < len(EDGES) else math.inf
    return low, high


def empty() -> list[int]:
    return [0] * SIZE


def add(histogram: list[int], seconds: float, count: int = 1) -> list[int]:
    if len(histogram) < SIZE:
        histogram.extend([0] * (SIZE - len(histogram)))
    histogram[bucket_of(seconds)] += count
    return histogram


def merged(histograms: Iterable[Sequence[int]]) -> list[int]:
    total = empty()
    for histogram in histograms:
        for index, count in enumerate(histogram):
            if count:
                total[index] += count
    return total


def percentile(histogram: Sequence[int], fraction: float) -> float | None:
    """The `fraction` quantile (0.5 for the median), or None for an empty histogram."""
    count = sum(histogram)
    if not count:
        return None
    rank = fraction * count
    seen = 0
    for index, in_bucket in enumerate(histogram):
        if not in_bucket:
            continue
        if seen + in_bucket >= rank:
            low, high = bucket_bounds(index)
            if index == 0:
                return (rank - seen) / in_bucket
            if math.isinf(high):
                return low
            share = (rank - seen) / in_bucket
            return math.exp(math.log(low) + share * (math.log(high) - math.log(low)))
        seen += in_bucket
    return bucket_bounds(len(histogram) - 1)[0]
