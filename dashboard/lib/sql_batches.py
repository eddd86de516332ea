"""How many values one `IN (...)` list carries: under the 999 bound parameters older
SQLite builds allow. No Django."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

IN_BATCH = 900

T = TypeVar("T")


def in_batches(values: Sequence[T], size: int = IN_BATCH) -> Iterator[Sequence[T]]:
    """`values` in slices of at most `size`, in order."""
    for start in range(0, len(values), size):
        yield values[start : start + size]
