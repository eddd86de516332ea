"""Write API (/api/v1/transfers/): start a transfer, as the wizard does.

The same permission, the same one-time key (an `Idempotency-Key` header, 16-64 letters,
digits, `-` or `_`; a repeated key answers the first outcome and sends nothing), the same
audit row. Session callers need the CSRF token, as for any unsafe method.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard import tasks
from dashboard.forms.transfers import transfer_sources, validate_transfer_name
from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_get, pipeline_list
from dashboard.models import Unit
from dashboard.selectors import units as unit_selectors
from dashboard.selectors.processing_configs import processing_config_names
from dashboard.services import actions, transfers

IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
KEY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    location=OpenApiParameter.HEADER,
    required=True,
    description="A new random value per operation (16-64 letters, digits, - or _). "
    "Sending it again returns the first outcome and sends nothing upstream.",
)
ActionOutputSerializer = inline_serializer(
    name="ActionOutcome",
    fields={
        "outcome": serializers.ChoiceField(choices=actions.Outcome.choices),
        "repeated": serializers.BooleanField(help_text="The key was used before: nothing sent."),
        "message": serializers.CharField(help_text="The upstream service's answer, in its words."),
        "upstream_status": serializers.IntegerField(allow_null=True),
        "audit_id": serializers.IntegerField(),
        "transfer_uuid": serializers.UUIDField(allow_null=True, required=False),
    },
)


def action_responses(*, forbidden: str, not_found: str) -> dict[int, Any]:
    """The schema's answers of an action endpoint (as `action_response` gives them)."""
    return {
        201: ActionOutputSerializer,
        200: ActionOutputSerializer,
        400: OpenApiResponse(description="Invalid input or no Idempotency-Key"),
        403: OpenApiResponse(description=forbidden),
        404: OpenApiResponse(description=not_found),
        409: OpenApiResponse(description="Refused by the workflow service, in its words"),
        422: OpenApiResponse(description="The Idempotency-Key was used for another request"),
        502: OpenApiResponse(description="The workflow service was not reached"),
    }


# What each outcome answers over HTTP.
OUTCOME_STATUS: dict[str, int] = {actions.Outcome.DONE: 201, actions.Outcome.REFUSED: 409}


def idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key", "").strip()
    return key if IDEMPOTENCY_KEY.fullmatch(key) else None


def action_response(result: actions.ActionResult, **extra: Any) -> Response:
    entry = result.entry
    body = {
        "outcome": entry.outcome,
        "repeated": result.repeated,
        "message": entry.upstream_message,
        "upstream_status": entry.upstream_status,
        "audit_id": entry.pk,
        **extra,
    }
    status = 200 if result.repeated and result.ok else OUTCOME_STATUS.get(entry.outcome, 502)
    return Response(body, status=status)


def unit_action(
    request: Request,
    uuid: Any,
    permission: str,
    needs: str,
    run: Callable[[Unit, str], actions.ActionResult],
) -> Response:
    """The shared frame of a unit action over the API: role, key, unit, one audited run."""
    if not request.user.has_perm(permission):
        return Response({"detail": needs}, 403)
    key = idempotency_key(request)
    if key is None:
        return Response(
            {"detail": "An Idempotency-Key header (16-64 characters) is required."}, 400
        )
    unit = unit_selectors.unit_get(uuid=str(uuid))
    if unit is None:
        return Response({"detail": "This unit is not known to Lookout (or not yet)."}, 404)
    try:
        result = run(unit, key)
    except actions.IdempotencyKeyReused:
        return Response({"detail": "This Idempotency-Key was used for another request."}, 422)
    return action_response(result)


def raw_path(text: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise serializers.ValidationError("not base64") from None
    parts = [part for part in raw.split(b"/") if part not in (b"", b".")]
    if not parts:
        raise serializers.ValidationError("a folder inside the location is needed")
    if b".." in parts or b"\0" in raw:
        raise serializers.ValidationError("a path may not go up a directory")
    return b"/".join(parts)


class StartTransferApi(APIView):
    class InputSerializer(serializers.Serializer):
        pipeline = serializers.CharField(
            required=False, help_text="Slug; the first one if left out."
        )
        location = serializers.UUIDField(help_text="A transfer source location's UUID.")
        paths = serializers.ListField(
            child=serializers.CharField(),
            min_length=1,
            help_text="Base64 of each folder's path, relative to the location (raw bytes).",
        )
        name = serializers.CharField(trim_whitespace=True, max_length=255)
        transfer_type = serializers.ChoiceField(
            choices=list(vocabulary.TRANSFER_TYPES), default="standard"
        )
        accession = serializers.CharField(required=False, allow_blank=True, default="")
        processing_config = serializers.CharField(required=False, default="")
        auto_approve = serializers.BooleanField(default=True)

        def validate_name(self, value: str) -> str:
            try:
                validate_transfer_name(value)
            except Exception as exc:  # a Django ValidationError, said the DRF way
                raise serializers.ValidationError(getattr(exc, "messages", [str(exc)])) from None
            return value

        def validate_paths(self, value: list[str]) -> list[bytes]:
            return [raw_path(text) for text in value]

        def validate(self, data: dict[str, Any]) -> dict[str, Any]:
            slug = data.get("pipeline") or (pipeline_list()[0].slug if pipeline_list() else "")
            pipeline = pipeline_get(slug)
            if pipeline is None:
                raise serializers.ValidationError({"pipeline": "No such pipeline."})
            data["pipeline"] = slug
            data["location"] = str(data["location"])
            if data["location"] not in {loc.uuid for loc in transfer_sources()}:
                raise serializers.ValidationError(
                    {"location": "Not an enabled transfer source location."}
                )
            names = processing_config_names(pipeline=pipeline)
            config = data.get("processing_config") or names[0]
            if config not in names:
                raise serializers.ValidationError(
                    {"processing_config": f"One of: {', '.join(names)}."}
                )
            data["processing_config"] = config
            return data

    @extend_schema(
        request=InputSerializer,
        parameters=[KEY_HEADER],
        responses={
            201: ActionOutputSerializer,
            200: ActionOutputSerializer,
            400: OpenApiResponse(description="Invalid input or no Idempotency-Key"),
            403: OpenApiResponse(description="Needs the operator or admin role"),
            409: OpenApiResponse(description="Refused by the workflow service"),
            422: OpenApiResponse(description="The Idempotency-Key was used for another request"),
            502: OpenApiResponse(description="The workflow service was not reached"),
        },
        summary="Start a transfer from folders of a transfer source location",
        description="One folder goes through the package endpoint, several through "
        "start_transfer (and approval when auto_approve). 201 started, 200 a repeated key, "
        "409 refused by the workflow service, 502 not reached; the message is the "
        "service's own.",
    )
    def post(self, request: Request) -> Response:
        if not request.user.has_perm(transfers.START_PERMISSION):
            return Response({"detail": "Starting transfers needs the operator or admin role."}, 403)
        key = idempotency_key(request)
        if key is None:
            return Response(
                {"detail": "An Idempotency-Key header (16-64 characters) is required."}, 400
            )
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        started = transfers.TransferRequest.from_cleaned(data, paths=data["paths"])
        try:
            result = transfers.transfer_start(
                user=request.user,
                request=started,
                idempotency_key=key,
                after_success=lambda: tasks.poll_pipeline_enqueue(started.pipeline),
            )
        except actions.IdempotencyKeyReused:
            return Response({"detail": "This Idempotency-Key was used for another request."}, 422)
        return action_response(result, transfer_uuid=transfers.started_transfer_uuid(result.entry))
