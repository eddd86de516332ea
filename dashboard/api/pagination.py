"""One paging rule for every list in the read API."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

# What a list answers when a filter has a value it does not take (schema only).
BAD_FILTER = OpenApiResponse(description="A filter has a value it does not accept")


class ApiPagination(LimitOffsetPagination):
    default_limit = 50
    # One answer never holds a whole big pipeline, however large `limit` is.
    max_limit = 1000

    def __init__(self, *, count: int | None = None) -> None:
        self.known_count = count

    def get_count(self, queryset: Any) -> int:
        # A kept count, when the caller has one: a COUNT reads every finished unit.
        if self.known_count is not None:
            return self.known_count
        return int(super().get_count(queryset))


def paginated_response(
    request: Request,
    view: APIView,
    items: Any,
    serializer: type[serializers.Serializer],
    *,
    count: int | None = None,
) -> Response:
    """A page of `items`; `count` is their number when already known (not counted)."""
    paginator = ApiPagination(count=count)
    page = paginator.paginate_queryset(items, request, view=view)
    return paginator.get_paginated_response(serializer(page, many=True).data)
