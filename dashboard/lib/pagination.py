"""A paginator told its total instead of counting it."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.utils.functional import cached_property


class KnownCountPaginator(Paginator):  # type: ignore[type-arg]  # any object list
    """Pages of `object_list` when the number of objects is already known (a kept count):
    a COUNT over a long history costs more than the page itself."""

    def __init__(self, object_list: Any, per_page: int, *, count: int, **kwargs: Any) -> None:
        super().__init__(object_list, per_page, **kwargs)
        self._known_count = count

    @cached_property
    def count(self) -> int:
        return self._known_count
