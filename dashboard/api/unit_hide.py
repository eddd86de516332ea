"""Write API: hide finished units in bulk, and undo within the window, as the units page does.

`POST /api/v1/units/hide/` with `units` (UUIDs) or `failed_older_than_days`, and an
`Idempotency-Key` header. The units leave Lookout's lists at once; the workflow service
is asked to hide them when the undo window ends (its hide cannot be undone), so the
answer is 202 with `outcome` "queued" and `hide_upstream_after`.
`POST /api/v1/units/hide/<audit_id>/undo/` shows them again within the window.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
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

from dashboard.api.transfers import KEY_HEADER, action_response, idempotency_key
from dashboard.lib.pipelines import pipeline_get
from dashboard.selectors.bulk_hide import hide_request_units
from dashboard.services import actions, bulk_hide

NEEDS = "Hiding units needs the operator or admin role."
HideOutputSerializer = inline_serializer(
    name="BulkHideOutcome",
    fields={
        "outcome": serializers.ChoiceField(
            choices=actions.Outcome.choices,
            help_text="queued: hidden in Lookout, the workflow service is asked later.",
        ),
        "repeated": serializers.BooleanField(help_text="The key was used before: nothing done."),
        "message": serializers.CharField(),
        "upstream_status": serializers.IntegerField(allow_null=True),
        "audit_id": serializers.IntegerField(help_text="Undo with this id."),
        "units": serializers.ListField(child=serializers.UUIDField()),
        "hide_upstream_after": serializers.DateTimeField(allow_null=True),
    },
)
RESPONSES = {
    400: OpenApiResponse(description="Invalid input or no Idempotency-Key"),
    403: OpenApiResponse(description="Needs the operator or admin role"),
    404: OpenApiResponse(description="No such address (an audit id is a number)"),
    409: OpenApiResponse(description="Nothing to hide, or too late to undo (the message says)"),
    422: OpenApiResponse(description="The Idempotency-Key was used for another request"),
}


def _key_or_400(request: Request) -> str | Response:
    if not request.user.has_perm(actions.HIDE_PERMISSION):
        return Response({"detail": NEEDS}, 403)
    key = idempotency_key(request)
    if key is None:
        return Response(
            {"detail": _("An Idempotency-Key header (16-64 characters) is required.")}, 400
        )
    return key


def _hide_response(result: actions.ActionResult) -> Response:
    units = hide_request_units(entry_id=result.entry.pk)
    after = min((u.hide_upstream_after for u in units if u.hide_upstream_after), default=None)
    response = action_response(
        result, units=[unit.uuid for unit in units], hide_upstream_after=after
    )
    if result.entry.outcome == actions.Outcome.QUEUED and not result.repeated:
        response.status_code = 202
    return response


class UnitsHideApi(APIView):
    @extend_schema_serializer(component_name="UnitsHideInput")
    class InputSerializer(serializers.Serializer):
        units = serializers.ListField(
            child=serializers.UUIDField(),
            required=False,
            max_length=bulk_hide.MAX_UNITS,
            help_text="Finished units to hide; others are left as they are.",
        )
        failed_older_than_days = serializers.IntegerField(
            required=False,
            min_value=1,
            max_value=3650,
            help_text="Instead of units: every failed unit that failed more than this long ago.",
        )
        pipeline = serializers.CharField(
            required=False, default="", help_text="With failed_older_than_days: one pipeline."
        )

        def validate(self, data: dict[str, Any]) -> dict[str, Any]:
            if bool(data.get("units")) == bool(data.get("failed_older_than_days")):
                raise serializers.ValidationError(
                    _("Give either units or failed_older_than_days (one of them).")
                )
            if data.get("pipeline") and pipeline_get(data["pipeline"]) is None:
                raise serializers.ValidationError({"pipeline": _("No such pipeline.")})
            return data

    @extend_schema(
        request=InputSerializer,
        parameters=[KEY_HEADER],
        responses={202: HideOutputSerializer, 200: HideOutputSerializer, **RESPONSES},
        summary="Hide finished units in bulk (undoable until the window ends)",
        description="Hides the units in Lookout's lists at once (202, outcome queued); the "
        "workflow service is asked to hide them at hide_upstream_after, and that cannot be "
        "undone. The audit row gets the service's answers then. 200 for a repeated key.",
    )
    def post(self, request: Request) -> Response:
        key = _key_or_400(request)
        if isinstance(key, Response):
            return key
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        criterion = ""
        if data.get("units"):
            uuids = [str(uuid) for uuid in data["units"]]
        else:
            days = data["failed_older_than_days"]
            criterion = f"failed more than {days} days ago"
            uuids = bulk_hide.failed_older_than(days, pipeline=data["pipeline"])
        try:
            result = bulk_hide.units_hide_bulk(
                user=request.user, uuids=uuids, idempotency_key=key, criterion=criterion
            )
        except actions.IdempotencyKeyReused:
            return Response(
                {"detail": _("This Idempotency-Key was used for another request.")}, 422
            )
        return _hide_response(result)


class UnitsHideUndoApi(APIView):
    @extend_schema(
        request=None,
        parameters=[KEY_HEADER],
        responses={201: HideOutputSerializer, 200: HideOutputSerializer, **RESPONSES},
        summary="Undo a bulk hide within its window",
        description="Shows the units again in Lookout's lists; the workflow service was not "
        "asked to hide them. 409 once the window has ended.",
    )
    def post(self, request: Request, audit_id: int) -> Response:
        key = _key_or_400(request)
        if isinstance(key, Response):
            return key
        try:
            result = bulk_hide.units_hide_undo(
                user=request.user, request_id=audit_id, idempotency_key=key
            )
        except actions.IdempotencyKeyReused:
            return Response(
                {"detail": _("This Idempotency-Key was used for another request.")}, 422
            )
        return action_response(result, units=[], hide_upstream_after=None)
