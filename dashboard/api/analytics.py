"""/api/v1/analytics/: the analytics page's figures as JSON, same query parameters."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard.forms.analytics import AnalyticsFilterForm
from dashboard.selectors import analytics as selectors

_NOT_COVERED = "null: a period before Lookout started watching (not covered), not zero."


class PeriodSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # the field, not its title
    first_day = serializers.DateField()
    last_day = serializers.DateField()
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()
    bucket = serializers.ChoiceField(choices=["day", "week", "month"])


class ThroughputSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # the field, not its title
    first_day = serializers.DateField()
    covered = serializers.BooleanField()
    transfers_started = serializers.IntegerField(allow_null=True, help_text=_NOT_COVERED)
    sips_started = serializers.IntegerField(allow_null=True, help_text=_NOT_COVERED)
    aips_stored = serializers.IntegerField(help_text="From the storage service's stored dates.")
    bytes_stored = serializers.IntegerField()


class StageSerializer(serializers.Serializer):
    group = serializers.CharField()
    count = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    p90_seconds = serializers.FloatField(allow_null=True)
    slowest = serializers.BooleanField()


class WaitSerializer(serializers.Serializer):
    decision = serializers.CharField()
    count = serializers.IntegerField(help_text="Waits that ended in the period.")
    observed_count = serializers.IntegerField(
        help_text="Of which the start is when Lookout first saw the unit waiting."
    )
    median_seconds = serializers.FloatField(allow_null=True)
    p90_seconds = serializers.FloatField(allow_null=True)
    waiting_now = serializers.IntegerField()
    longest_now_seconds = serializers.FloatField(allow_null=True)


class DayCountSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # the field, not its title
    first_day = serializers.DateField()
    covered = serializers.BooleanField()
    count = serializers.IntegerField(allow_null=True, help_text=_NOT_COVERED)


class FailureSerializer(serializers.Serializer):
    group = serializers.CharField()
    job = serializers.CharField(help_text='"" for the group as a whole.')
    runs = serializers.IntegerField()
    failures = serializers.IntegerField()
    rate = serializers.FloatField()


class QueueSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # the field, not its title
    moment = serializers.DateTimeField()
    covered = serializers.BooleanField()
    active = serializers.IntegerField(allow_null=True)
    waiting = serializers.IntegerField(allow_null=True)


class AnalyticsSerializer(serializers.Serializer):
    period = PeriodSerializer()
    pipeline = serializers.CharField(allow_null=True)
    watching_since = serializers.DateTimeField(allow_null=True)
    throughput = ThroughputSerializer(many=True)
    started_observed = serializers.IntegerField(
        help_text="Starts whose time is when Lookout first saw the unit (no task times)."
    )
    stages = StageSerializer(many=True, help_text="In workflow order.")
    waits = WaitSerializer(many=True)
    approvals = DayCountSerializer(many=True)
    failure_groups = FailureSerializer(many=True)
    failure_jobs = FailureSerializer(many=True)
    queue = QueueSerializer(many=True)
    queue_by = serializers.CharField()


def _plain(data: selectors.Analytics) -> dict[str, Any]:
    values = asdict(data)
    values["failure_groups"] = [{**asdict(r), "rate": r.rate} for r in data.failure_groups]
    values["failure_jobs"] = [{**asdict(r), "rate": r.rate} for r in data.failure_jobs]
    return values


class AnalyticsApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("period", str, enum=[*selectors.PERIODS, selectors.CUSTOM]),
            OpenApiParameter("start", OpenApiTypes.DATE, description="First day (custom)"),
            OpenApiParameter("end", OpenApiTypes.DATE, description="Last day (custom)"),
            OpenApiParameter("pipeline", str, description="A pipeline slug; all if absent"),
        ],
        responses={
            200: AnalyticsSerializer,
            400: OpenApiResponse(description="A period or pipeline it does not accept"),
        },
        summary="Throughput, time per stage, waits, failures and queue for a period",
    )
    def get(self, request: Request) -> Response:
        form = AnalyticsFilterForm(request.query_params)
        if request.query_params and not form.is_valid():
            return Response({"errors": form.errors.get_json_data()}, status=400)
        choices = form.choices()
        period = selectors.period_get(
            choices["period"], first=choices["start"], last=choices["end"]
        )
        data = selectors.analytics_get(period=period, pipeline=choices["pipeline"] or None)
        return Response(AnalyticsSerializer(_plain(data)).data)
