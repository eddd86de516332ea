"""Write API: partial reingest from the workflow side, as the unit page offers it.

`POST /api/v1/units/<uuid>/reingest/` (`name`: the AIP's directory in the shared tmp
area) starts it; `POST /api/v1/units/<uuid>/reingest/approve/` answers the SIP's
"Approve AIP reingest". Both need an `Idempotency-Key` header, the operator or admin
role, and write an audit row; a refusal carries the workflow service's own words.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard import tasks
from dashboard.api.transfers import KEY_HEADER, action_responses, unit_action
from dashboard.models import Unit
from dashboard.services import actions, workflow_reingest

NEEDS = "Reingesting needs the operator or admin role."
RESPONSES = action_responses(forbidden="Needs the operator or admin role", not_found="No such unit")


class PartialReingestStartApi(APIView):
    @extend_schema_serializer(component_name="PartialReingestInput")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(
            max_length=255,
            required=False,
            help_text="The AIP's directory in the shared tmp area; <name>-<uuid> if left out.",
        )

        def validate_name(self, value: str) -> str:
            if "/" in value or value in {".", ".."}:
                raise serializers.ValidationError(_("A directory name, without any slash."))
            return value

    @extend_schema(
        request=InputSerializer,
        parameters=[KEY_HEADER],
        responses=RESPONSES,
        summary="Start a partial reingest of a completed SIP's AIP (workflow side)",
        description="POST /api/ingest/reingest on the workflow service; the SIP then waits "
        "at “Approve AIP reingest”. 201 started, 200 a repeated key, 409 refused (the "
        "service's words), 502 not reached.",
    )
    def post(self, request: Request, uuid: Any) -> Response:
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)

        def run(unit: Unit, key: str) -> actions.ActionResult:
            return workflow_reingest.partial_reingest_start(
                user=request.user,
                unit=unit,
                name=data_in.validated_data.get("name")
                or workflow_reingest.default_reingest_name(unit),
                idempotency_key=key,
                after_success=lambda: tasks.poll_pipeline_enqueue(unit.pipeline),
            )

        return unit_action(request, uuid, workflow_reingest.REINGEST_PERMISSION, NEEDS, run)


class PartialReingestApproveApi(APIView):
    @extend_schema(
        request=None,
        parameters=[KEY_HEADER],
        responses=RESPONSES,
        summary="Approve a SIP's partial reingest",
        description="POST /api/ingest/reingest/approve on the workflow service. 409 when "
        "the SIP does not wait at “Approve AIP reingest”, with the service's words.",
    )
    def post(self, request: Request, uuid: Any) -> Response:
        def run(unit: Unit, key: str) -> actions.ActionResult:
            return workflow_reingest.partial_reingest_approve(
                user=request.user,
                unit=unit,
                idempotency_key=key,
                after_success=lambda: tasks.poll_pipeline_enqueue(unit.pipeline),
            )

        return unit_action(request, uuid, workflow_reingest.REINGEST_PERMISSION, NEEDS, run)
