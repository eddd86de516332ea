"""Read API (/api/v1/): DRF views over the selectors. No upstream call happens here."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard.api.fields import CaseInsensitiveChoiceField
from dashboard.api.pagination import BAD_FILTER, ApiPagination, paginated_response
from dashboard.models import TimesFrom
from dashboard.selectors import freshness
from dashboard.selectors import units as unit_selectors


class UnitOutputSerializer(serializers.Serializer):
    uuid = serializers.UUIDField()
    pipeline = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField(help_text="The workflow service's code, e.g. USER_INPUT.")
    status_label = serializers.CharField(
        help_text="The status in the words the pages show, e.g. “Awaiting decision”, or "
        "“Sent to backlog” for a completed transfer sent to backlog."
    )
    microservice = serializers.CharField()
    sip_uuid = serializers.CharField(allow_null=True)
    transfer_uuid = serializers.CharField(allow_null=True)
    sent_to_backlog = serializers.BooleanField()
    status_since = serializers.DateTimeField(allow_null=True)
    status_since_from = CaseInsensitiveChoiceField(choices=TimesFrom.choices)
    failed_job = serializers.CharField()
    failed_at = serializers.DateTimeField(allow_null=True)
    failed_at_from = CaseInsensitiveChoiceField(choices=TimesFrom.choices)
    awaiting_decision = serializers.BooleanField()
    decision = serializers.CharField()
    path = serializers.CharField()
    updated_at = serializers.DateTimeField()


class UnitListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        status = CaseInsensitiveChoiceField(choices=unit_selectors.UNIT_STATUSES, required=False)
        kind = CaseInsensitiveChoiceField(choices=unit_selectors.UNIT_KINDS, required=False)
        q = serializers.CharField(required=False, max_length=200)
        pipeline = serializers.CharField(required=False, max_length=40)

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: UnitOutputSerializer(many=True), 400: BAD_FILTER},
        summary="Units (transfers and SIPs) newest change first",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        units = unit_selectors.unit_list(**filters.validated_data)
        return paginated_response(request, self, units, UnitOutputSerializer)


class TaskSummarySerializer(serializers.Serializer):
    uuid = serializers.CharField()
    exit_code = serializers.IntegerField(allow_null=True)


class JobOutputSerializer(serializers.Serializer):
    uuid = serializers.CharField()
    name = serializers.CharField()
    status = serializers.CharField()
    microservice = serializers.CharField()
    link_uuid = serializers.CharField(allow_null=True)
    tasks = TaskSummarySerializer(many=True)


class UnitDetailApi(APIView):
    @extend_schema_serializer(component_name="UnitDetail")
    class OutputSerializer(UnitOutputSerializer):
        jobs = JobOutputSerializer(many=True, allow_null=True)
        jobs_fetched_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(
        responses={200: OutputSerializer, 404: OpenApiResponse(description="No such unit")},
        summary="One unit with its jobs and task exit codes",
    )
    def get(self, request: Request, uuid: str) -> Response:
        unit = unit_selectors.unit_get(uuid=str(uuid))
        if unit is None:
            return Response({"detail": "No such unit."}, status=404)
        jobs = unit_selectors.unit_jobs(unit=unit)
        fields: list[str] = list(UnitOutputSerializer().fields)
        data: dict[str, object] = {
            **{name: getattr(unit, name) for name in fields},
            "jobs": jobs["jobs"] if jobs else None,
            "jobs_fetched_at": jobs["fetched_at"] if jobs else None,
        }
        return Response(self.OutputSerializer(data).data)


class WaitingListApi(APIView):
    @extend_schema_serializer(component_name="WaitingUnit")
    class OutputSerializer(UnitOutputSerializer):
        waiting_since = serializers.DateTimeField(allow_null=True)
        waiting_since_from = CaseInsensitiveChoiceField(choices=TimesFrom.choices)
        awaiting_approval = serializers.BooleanField()

    @extend_schema(
        responses=OutputSerializer(many=True), summary="Units awaiting a decision, oldest first"
    )
    def get(self, request: Request) -> Response:
        units = unit_selectors.waiting_list()
        return Response(self.OutputSerializer(units, many=True).data)


class HealthApi(APIView):
    @extend_schema(
        responses=inline_serializer(
            name="ServiceHealth",
            many=True,
            fields={
                "service": serializers.CharField(),
                "interval_seconds": serializers.IntegerField(),
                "last_attempt_at": serializers.DateTimeField(allow_null=True),
                "last_success_at": serializers.DateTimeField(allow_null=True),
                "last_error": serializers.CharField(),
                "age_seconds": serializers.FloatField(allow_null=True),
                "stale": serializers.BooleanField(),
            },
        ),
        summary="Freshness of what Lookout knows, per upstream service",
    )
    def get(self, request: Request) -> Response:
        return Response([asdict(h) for h in freshness.service_health_list()])
