"""One blocking call per item, over a few threads and without a future per item.

A poll cycle reads a thousand unit statuses with 32 in flight. A future per read (its
lock, its condition, the pool's queue and wake-up) cost about a tenth of the cycle's
CPU, on the one core the GIL leaves it. Here each of a few threads takes the next item
from one queue until none is left, so a thousand reads cost as many futures as threads.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_STOPPED = -1


class FanOut(Generic[T, R]):
    """`func` over `items` by at most `workers` tasks of `pool`, started at once.

    `results()` waits and gives `(item, func(item))` in the items' order; `completed()`
    gives them as they come in instead, a batch at a time. An exception `func` raises
    stops the other tasks taking items and comes out of either. `cancel()` stops them
    taking items: the calls under way finish (one round at most).
    """

    def __init__(
        self, pool: Executor, func: Callable[[T], R], items: Sequence[T], workers: int
    ) -> None:
        self._func = func
        self._items = items
        self._answers: list[R | None] = [None] * len(items)
        self._todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(len(items)):
            self._todo.put(index)
        self._done: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._handed_out = 0
        self._stop = threading.Event()
        self._tasks: list[Future[None]] = [
            pool.submit(self._work) for _ in range(min(workers, len(items)))
        ]

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                index = self._todo.get_nowait()
            except queue.Empty:
                return
            try:
                self._answers[index] = self._func(self._items[index])
            except BaseException:
                self._stop.set()
                self._done.put(_STOPPED)
                raise
            self._done.put(index)

    def cancel(self) -> None:
        self._stop.set()
        self._done.put(_STOPPED)
        for task in self._tasks:
            task.cancel()

    @property
    def all_handed_out(self) -> bool:
        return self._handed_out == len(self._items)

    def completed(self, at_least: int) -> list[tuple[T, R]]:
        """The answers in since the last call: waits for `at_least` more (or all that are
        left), then takes every other one already in. What stopped the calls comes out
        here, as from `results()`."""
        indices: list[int] = []
        wanted = min(at_least, len(self._items) - self._handed_out)
        while len(indices) < wanted or not self._done.empty():
            index = self._done.get()
            if index == _STOPPED:
                self.results()
            indices.append(index)
        self._handed_out += len(indices)
        return [(self._items[index], self._answers[index]) for index in indices]  # type: ignore[misc]

    def results(self) -> list[tuple[T, R]]:
        for task in self._tasks:
            if not task.cancelled():
                task.result()
        if self._stop.is_set():
            raise RuntimeError("results of a cancelled fan-out")
        return list(zip(self._items, self._answers, strict=True))  # type: ignore[arg-type]
