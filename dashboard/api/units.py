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
from dashboard.lib import vocabulary
from dashboard.models import TimesFrom
from dashboard.selectors import freshness
from dashboard.selectors import units as unit_selectors

_FROM = (
    "`upstream`: the time comes from the workflow service's task times; `observed`: it is "
    "when Lookout first saw it, so the real time is at least that early."
)
_ANY_CASE = "Any case."


class UnitOutputSerializer(serializers.Serializer):
    uuid = serializers.UUIDField(help_text="The unit's UUID in the workflow service.")
    pipeline = serializers.CharField(
        help_text="Slug of the pipeline (workflow service) it runs in."
    )
    name = serializers.CharField(help_text="The transfer's or SIP's name.")
    kind = serializers.CharField(help_text="`transfer` or `sip`.")
    status = serializers.CharField(help_text="The workflow service's code, e.g. USER_INPUT.")
    status_label = serializers.CharField(
        help_text="The status in the words the pages show, e.g. “Awaiting decision”, or "
        "“Sent to backlog” for a completed transfer sent to backlog."
    )
    microservice = serializers.CharField(
        help_text="The workflow step (microservice group) it is in or last ran."
    )
    sip_uuid = serializers.CharField(
        allow_null=True,
        help_text="A transfer's SIP once made (`BACKLOG` when sent to backlog); null if not known.",
    )
    transfer_uuid = serializers.CharField(
        allow_null=True, help_text="A SIP's transfer, when known; null for a transfer."
    )
    sent_to_backlog = serializers.BooleanField(
        help_text="A completed transfer that went to the transfer backlog."
    )
    status_since = serializers.DateTimeField(
        allow_null=True, help_text="When it reached its current status; null when unknown."
    )
    status_since_from = serializers.ChoiceField(choices=TimesFrom.choices, help_text=_FROM)
    failed_job = serializers.CharField(help_text="The job that failed, in words; '' if none.")
    failed_at = serializers.DateTimeField(
        allow_null=True, help_text="When it failed; null unless it failed."
    )
    failed_at_from = serializers.ChoiceField(choices=TimesFrom.choices, help_text=_FROM)
    awaiting_decision = serializers.BooleanField(help_text="Waiting for a person's decision.")
    decision = serializers.CharField(help_text="The decision it waits for, in words; '' if none.")
    path = serializers.CharField(help_text="Its directory in the workflow service.")
    updated_at = serializers.DateTimeField(help_text="When Lookout last saw it change.")


class UnitListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        status = CaseInsensitiveChoiceField(
            choices=[
                (code, vocabulary.unit_status(code).text) for code in unit_selectors.UNIT_STATUSES
            ],
            required=False,
            help_text=f"Only units in this status. {_ANY_CASE}",
        )
        kind = CaseInsensitiveChoiceField(
            choices=list(vocabulary.UNIT_KINDS.items()),
            required=False,
            help_text=f"Only transfers or only SIPs. {_ANY_CASE}",
        )
        q = serializers.CharField(
            required=False,
            max_length=200,
            help_text="A fragment of the name or directory (any case), or the start of the UUID.",
        )
        pipeline = serializers.CharField(
            required=False,
            max_length=40,
            help_text="Only units of this pipeline (its slug); an unknown slug finds none.",
        )

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: UnitOutputSerializer(many=True), 400: BAD_FILTER},
        summary="Units (transfers and SIPs) newest change first",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        units = unit_selectors.unit_list(**filters.validated_data)
        known = unit_selectors.unit_list_count(**filters.validated_data)
        return paginated_response(request, self, units, UnitOutputSerializer, count=known)


class TaskSummarySerializer(serializers.Serializer):
    uuid = serializers.CharField(help_text="The task's UUID.")
    exit_code = serializers.IntegerField(allow_null=True, help_text="Null while it runs.")


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
        waiting_since = serializers.DateTimeField(
            allow_null=True, help_text="When it started waiting for the decision."
        )
        waiting_since_from = serializers.ChoiceField(choices=TimesFrom.choices, help_text=_FROM)
        awaiting_approval = serializers.BooleanField(
            source="approvable",
            help_text="A transfer waiting for approval, which the API can give "
            "(`POST` on the pages); other decisions are answered in the service's own UI.",
        )

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
                "service": serializers.CharField(help_text="`workflow:<pipeline>` or `storage`."),
                "interval_seconds": serializers.IntegerField(help_text="How often it is polled."),
                "last_attempt_at": serializers.DateTimeField(
                    allow_null=True, help_text="The last poll, answered or not."
                ),
                "last_success_at": serializers.DateTimeField(
                    allow_null=True, help_text="The last poll it answered."
                ),
                "last_error": serializers.CharField(
                    help_text="Why the last poll failed; '' after a success."
                ),
                "age_seconds": serializers.FloatField(
                    allow_null=True, help_text="Since the last success; null if it never answered."
                ),
                "stale": serializers.BooleanField(
                    help_text="It has missed several poll intervals: what Lookout shows of it "
                    "may be out of date."
                ),
            },
        ),
        summary="Freshness of what Lookout knows, per upstream service",
    )
    def get(self, request: Request) -> Response:
        return Response([asdict(h) for h in freshness.service_health_list()])
