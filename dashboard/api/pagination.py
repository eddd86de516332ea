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


def paginated_response(
    request: Request, view: APIView, items: Any, serializer: type[serializers.Serializer]
) -> Response:
    paginator = ApiPagination()
    page = paginator.paginate_queryset(items, request, view=view)
    return paginator.get_paginated_response(serializer(page, many=True).data)
