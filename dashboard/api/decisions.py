"""Write API: answer a unit's pending decision through the workflow service's dashboard.

`POST /api/v1/units/<uuid>/decision/` with `job` (the decision job's UUID, as the unit's
`decision_job_uuid`) and `choice` (a key of its choices). Needs a service account on the
pipeline, an `Idempotency-Key` header and the `answer_decisions` permission (operators
and admins), and writes an audit row. The service answers alike whether it acted or not,
so a sent answer is 202 with outcome `sent`: the audit row says `done` or "not taken"
once a later read of the service's lists tells. A decision taken elsewhere meanwhile is
409 and nothing is sent.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard import tasks
from dashboard.api.transfers import (
    KEY_HEADER,
    ActionOutputSerializer,
    action_responses,
    unit_action,
)
from dashboard.models import Unit
from dashboard.services import actions, decisions

NEEDS = "Answering decisions needs the operator or admin role."
RESPONSES = {
    **action_responses(forbidden="Needs the operator or admin role", not_found="No such unit"),
    202: ActionOutputSerializer,
}


class DecisionAnswerApi(APIView):
    @extend_schema_serializer(component_name="DecisionAnswerInput")
    class InputSerializer(serializers.Serializer):
        job = serializers.UUIDField(help_text="The decision job (the unit's decision_job_uuid).")
        choice = serializers.CharField(
            max_length=200, help_text="A key of the decision's choices, as the unit lists them."
        )

    @extend_schema(
        request=InputSerializer,
        parameters=[KEY_HEADER],
        responses={
            **action_responses(
                forbidden="Needs the operator or admin role", not_found="No such unit"
            ),
            202: ActionOutputSerializer,
        },
        summary="Answer a unit's pending decision (needs a dashboard service account)",
        description="POST /mcp/execute/ on the workflow service's own dashboard, as its "
        "decision menus do. 202 sent (outcome to follow in the audit log), 200 a repeated "
        "key, 409 taken elsewhere meanwhile or not answerable, 502 not reached.",
    )
    def post(self, request: Request, uuid: Any) -> Response:
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)

        def run(unit: Unit, key: str) -> actions.ActionResult:
            return decisions.decision_answer(
                user=request.user,
                unit=unit,
                idempotency_key=key,
                job=str(data_in.validated_data["job"]),
                choice=data_in.validated_data["choice"],
                after_success=lambda: tasks.poll_pipeline_enqueue(unit.pipeline),
            )

        return unit_action(request, uuid, decisions.ANSWER_PERMISSION, NEEDS, run)
