"""/api/v1/summary/: the figures of the wall and the overview, per pipeline and in total.

One DRF view over `dashboard.selectors.summary`; no upstream call happens here.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard.models import TimesFrom
from dashboard.selectors.summary import summary_get


@extend_schema_serializer(component_name="SummaryStatusCount")
class StatusCountSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="The workflow service's code, e.g. USER_INPUT.")
    status_label = serializers.CharField(
        help_text="The status in the words the pages show, e.g. “Awaiting decision”."
    )
    count = serializers.IntegerField()


@extend_schema_serializer(component_name="SummaryOldestWait")
class OldestWaitSerializer(serializers.Serializer):
    pipeline = serializers.CharField()
    uuid = serializers.UUIDField()
    name = serializers.CharField()
    since = serializers.DateTimeField(help_text="When it started waiting for a decision.")
    times_from = serializers.ChoiceField(
        choices=TimesFrom.choices,
        help_text="`upstream`: from the workflow service's task times; `observed`: when "
        "Lookout first saw it waiting, so it has waited at least this long.",
    )
    decision = serializers.CharField(help_text="The decision it waits for, in words.")
    age_seconds = serializers.FloatField()


@extend_schema_serializer(component_name="SummaryFigures")
class FiguresSerializer(serializers.Serializer):
    units = serializers.IntegerField(help_text="Units, hidden ones not counted.")
    status_counts = StatusCountSerializer(many=True, help_text="Every status, zeros included.")
    in_progress = serializers.IntegerField(
        help_text="In an unfinished status (processing, pending, unknown) and not waiting "
        "for a decision."
    )
    waiting = serializers.IntegerField(help_text="Waiting for a decision.")
    oldest_wait = OldestWaitSerializer(
        allow_null=True, help_text="The longest wait for a decision; null when none waits."
    )
    failed_24h = serializers.IntegerField(
        help_text="Failed in the last 24 hours, by when they failed upstream."
    )


@extend_schema_serializer(component_name="SummaryServiceFreshness")
class FreshnessSerializer(serializers.Serializer):
    service = serializers.CharField(
        help_text="`workflow:<pipeline>`, `dashboard:<pipeline>` (the status lists of a "
        "pipeline with a service account) or `storage`."
    )
    interval_seconds = serializers.IntegerField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    last_success_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField()
    age_seconds = serializers.FloatField(
        allow_null=True, help_text="Since the last success; null when it never answered."
    )
    stale = serializers.BooleanField()


@extend_schema_serializer(component_name="SummaryPipeline")
class PipelineSummarySerializer(FiguresSerializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    freshness = FreshnessSerializer(help_text="Its workflow service's.")
    mode = serializers.ChoiceField(
        choices=["full_view", "api_only"],
        help_text="`full_view`: a service account on the workflow service's own dashboard "
        "lists every unit; `api_only`: units started elsewhere with automatic approval, "
        "and their failures, are not seen.",
    )


class SummaryApi(APIView):
    @extend_schema_serializer(component_name="Summary")
    class OutputSerializer(serializers.Serializer):
        generated_at = serializers.DateTimeField()
        failure_window_hours = serializers.IntegerField()
        total = FiguresSerializer(help_text="All configured pipelines together.")
        pipelines = PipelineSummarySerializer(many=True)
        services = FreshnessSerializer(many=True, help_text="Every upstream service.")

    @extend_schema(
        responses=OutputSerializer,
        summary="Units by status, waiting, failed in 24 h, and freshness, per pipeline and "
        "in total",
    )
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(summary_get()).data)
