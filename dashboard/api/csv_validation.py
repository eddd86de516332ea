"""Write API (/api/v1/csv-validations/): send a CSV to a validator, as the page does.

Multipart (`file`, `validator`, optional `pipeline`) with an `Idempotency-Key` header;
the same permission, size limit and audit row as the page. 200 with `valid` and
`reason` as the workflow service gave them; 413 over `LOOKOUT_CSV_MAX_BYTES`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard.api.transfers import KEY_HEADER, action_response, idempotency_key
from dashboard.forms.csv_validation import too_large_message
from dashboard.lib.csv_validators import CSV_VALIDATORS
from dashboard.lib.pipelines import pipeline_get, pipeline_list
from dashboard.services import actions, csv_validation

VerdictSerializer = inline_serializer(
    name="CsvVerdict",
    fields={
        "outcome": serializers.ChoiceField(choices=actions.Outcome.choices),
        "repeated": serializers.BooleanField(),
        "valid": serializers.BooleanField(allow_null=True, help_text="null: no verdict."),
        "reason": serializers.CharField(help_text="The service's reason, as given."),
        "message": serializers.CharField(),
        "upstream_status": serializers.IntegerField(allow_null=True),
        "audit_id": serializers.IntegerField(),
        "file_name": serializers.CharField(),
    },
)


class CsvValidationApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema_serializer(component_name="CsvValidationInput")
    class InputSerializer(serializers.Serializer):
        pipeline = serializers.CharField(required=False, help_text="Slug; the first if left out.")
        validator = serializers.ChoiceField(choices=list(CSV_VALIDATORS))
        file = serializers.FileField(help_text="The CSV, UTF-8.")

        def validate_file(self, value: Any) -> Any:
            if value.size > settings.LOOKOUT_CSV_MAX_BYTES:
                raise serializers.ValidationError(too_large_message(value.size))
            try:
                value.text = value.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise serializers.ValidationError(_("The file is not UTF-8 text.")) from None
            return value

        def validate_pipeline(self, value: str) -> str:
            if pipeline_get(value) is None:
                raise serializers.ValidationError(_("No such pipeline."))
            return value

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        parameters=[KEY_HEADER],
        responses={
            200: VerdictSerializer,
            400: OpenApiResponse(description="Invalid input or no Idempotency-Key"),
            403: OpenApiResponse(description="Needs the operator or admin role"),
            409: OpenApiResponse(description="Refused"),
            413: OpenApiResponse(description="The file is over the size limit"),
            422: OpenApiResponse(description="The Idempotency-Key was used for another request"),
            502: OpenApiResponse(description="The workflow service was not reached"),
        },
        summary="Validate a CSV with one of the workflow service's validators",
        description="200 with the verdict (valid or not, and the service's reason as "
        "given), 409 refused, 413 too large, 502 the service was not reached.",
    )
    def post(self, request: Request) -> Response:
        if not request.user.has_perm(csv_validation.VALIDATE_PERMISSION):
            return Response(
                {"detail": _("Validating CSV files needs the operator or admin role.")}, 403
            )
        key = idempotency_key(request)
        if key is None:
            return Response(
                {"detail": _("An Idempotency-Key header (16-64 characters) is required.")}, 400
            )
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        if length > settings.LOOKOUT_CSV_MAX_BYTES + 16 * 1024:
            return Response({"detail": too_large_message()}, 413)
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        upload = data["file"]
        try:
            result = csv_validation.csv_validate(
                user=request.user,
                pipeline=data.get("pipeline") or pipeline_list()[0].slug,
                validator=data["validator"],
                file_name=upload.name,
                text=upload.text,
                idempotency_key=key,
            )
        except actions.IdempotencyKeyReused:
            return Response(
                {"detail": _("This Idempotency-Key was used for another request.")}, 422
            )
        verdict = csv_validation.csv_verdict(result.entry)
        response = action_response(
            result,
            valid=verdict.valid,
            reason=verdict.message if verdict.valid is False else "",
            file_name=upload.name,
        )
        if response.status_code == 201:
            response.status_code = 200
        return response
