"""Write API: add metadata files to a SIP, as its page does.

`POST /api/v1/units/<uuid>/metadata-files/` with `location` (a transfer source) and
`paths` (base64 of each raw path, relative to the location) and an `Idempotency-Key`
header; sent to the workflow service as base64 of `<location uuid>:<path>`.
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
from dashboard.api.transfers import KEY_HEADER, raw_path, unit_action
from dashboard.api.workflow_reingest import RESPONSES
from dashboard.forms.transfers import transfer_sources
from dashboard.models import Unit
from dashboard.services import actions
from dashboard.services.metadata_files import METADATA_PERMISSION, metadata_files_add

NEEDS = "Adding metadata files needs the operator or admin role."


class MetadataFilesApi(APIView):
    @extend_schema_serializer(component_name="MetadataFilesInput")
    class InputSerializer(serializers.Serializer):
        location = serializers.UUIDField(help_text="A transfer source location's UUID.")
        paths = serializers.ListField(
            child=serializers.CharField(),
            min_length=1,
            max_length=200,
            help_text="Base64 of each file's (or folder's) path, relative to the location.",
        )

        def validate_location(self, value: Any) -> str:
            if str(value) not in {loc.uuid for loc in transfer_sources()}:
                raise serializers.ValidationError(_("Not an enabled transfer source location."))
            return str(value)

        def validate_paths(self, value: list[str]) -> list[bytes]:
            return [raw_path(text) for text in value]

    @extend_schema(
        request=InputSerializer,
        parameters=[KEY_HEADER],
        responses=RESPONSES,
        summary="Add metadata files to a SIP that is being ingested",
        description="POST /api/ingest/copy_metadata_files/ on the workflow service. 201 "
        "added, 200 a repeated key, 409 refused (the service's words, e.g. a location not "
        "associated with the pipeline), 502 not reached.",
    )
    def post(self, request: Request, uuid: Any) -> Response:
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data

        def run(unit: Unit, key: str) -> actions.ActionResult:
            return metadata_files_add(
                user=request.user,
                unit=unit,
                location_uuid=data["location"],
                paths=data["paths"],
                idempotency_key=key,
                after_success=lambda: tasks.poll_pipeline_enqueue(unit.pipeline),
            )

        return unit_action(request, uuid, METADATA_PERMISSION, NEEDS, run)
