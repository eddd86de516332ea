"""Storage read API (/api/v1/pipelines/, spaces/, locations/, packages/).

DRF views over `dashboard.selectors.storage`: the cached summary and the package
mirror. No storage service call happens here. Lists page with `limit` and `offset`.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard.api.fields import CaseInsensitiveChoiceField
from dashboard.api.pagination import BAD_FILTER, ApiPagination, paginated_response
from dashboard.lib import vocabulary
from dashboard.models import StoragePackage
from dashboard.selectors import storage as storage_selectors

_ANY_CASE = "Any case."
PACKAGE_TYPES = storage_selectors.PACKAGE_TYPES
PACKAGE_STATUSES = storage_selectors.PACKAGE_STATUSES
# The package list's orders, in words; the keys are the selector's.
SORT_LABELS = {
    "-stored": "Newest stored first",
    "stored": "Oldest stored first",
    "-size": "Largest first",
    "size": "Smallest first",
    "name": "By name, A to Z",
    "-name": "By name, Z to A",
    "type": "By type",
    "status": "By status",
}


@extend_schema_serializer(component_name="StorageUsage")
class UsageSerializer(serializers.Serializer):
    used = serializers.IntegerField(help_text="Bytes used.")
    limit = serializers.IntegerField(allow_null=True, help_text="Bytes allowed; null: unlimited.")
    percent = serializers.FloatField(
        allow_null=True, help_text="Used, as a percentage of the limit; null when unlimited."
    )


class PipelineListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    @extend_schema_serializer(component_name="StoragePipeline")
    class OutputSerializer(serializers.Serializer):
        uuid = serializers.UUIDField(help_text="The pipeline's UUID in the storage service.")
        description = serializers.CharField(help_text="Its description there.")
        remote_name = serializers.CharField(help_text="Its address as the storage service has it.")

    @extend_schema(
        responses=OutputSerializer(many=True), summary="Pipelines the storage service knows"
    )
    def get(self, request: Request) -> Response:
        return paginated_response(
            request, self, storage_selectors.pipeline_list(), self.OutputSerializer
        )


class SpaceListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        access_protocol = serializers.CharField(
            required=False,
            max_length=20,
            help_text="Only spaces of this protocol, e.g. `FS` (local filesystem) or `S3`. "
            f"{_ANY_CASE}",
        )

    @extend_schema_serializer(component_name="StorageSpace")
    class OutputSerializer(serializers.Serializer):
        uuid = serializers.UUIDField(help_text="The space's UUID.")
        access_protocol = serializers.CharField(help_text="e.g. `FS` or `S3`, as the service says.")
        path = serializers.CharField(help_text="Its root path.")
        location_count = serializers.IntegerField(help_text="Locations in it.")
        usage = UsageSerializer(help_text="Bytes used and allowed.")

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: OutputSerializer(many=True), 400: BAD_FILTER},
        summary="Spaces with their usage (a null limit is unlimited)",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        spaces = storage_selectors.space_list(**filters.validated_data)
        return paginated_response(request, self, spaces, self.OutputSerializer)


class LocationListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        purpose = CaseInsensitiveChoiceField(
            choices=list(vocabulary.PURPOSES.items()),
            required=False,
            help_text=f"Only locations with this purpose. {_ANY_CASE}",
        )
        pipeline = serializers.UUIDField(
            required=False, help_text="Only locations this pipeline (storage-service UUID) uses."
        )
        space = serializers.UUIDField(required=False, help_text="Only locations in this space.")

    @extend_schema_serializer(component_name="StorageLocation")
    class OutputSerializer(serializers.Serializer):
        uuid = serializers.UUIDField(help_text="The location's UUID.")
        purpose = serializers.CharField(help_text="The service's code, e.g. `AS`.")
        purpose_label = serializers.CharField(help_text="The purpose in words, e.g. AIP storage.")
        description = serializers.CharField(help_text="Its description in the service.")
        enabled = serializers.BooleanField(help_text="Whether the service may use it.")
        path = serializers.CharField(help_text="Its full path.")
        relative_path = serializers.CharField(help_text="Its path within its space.")
        space_uuid = serializers.CharField(help_text="The space it is in.")
        pipeline_uuids = serializers.ListField(
            child=serializers.CharField(), help_text="Pipelines (storage-service UUIDs) using it."
        )
        usage = UsageSerializer(help_text="Bytes used and allowed.")

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: OutputSerializer(many=True), 400: BAD_FILTER},
        summary="Locations with purpose, state and quota usage",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = {k: str(v) for k, v in filters.validated_data.items()}
        return paginated_response(
            request, self, storage_selectors.location_list(**data), self.OutputSerializer
        )


@extend_schema_serializer(component_name="StoragePackage")
class PackageOutputSerializer(serializers.Serializer):
    uuid = serializers.CharField(help_text="The package's UUID.")
    name = serializers.CharField(help_text="From its path, without UUID suffix or extension.")
    package_type = serializers.CharField(help_text="e.g. `AIP`, `DIP`, `transfer`.")
    status = serializers.CharField(help_text="The storage service's code, e.g. UPLOADED.")
    status_label = serializers.CharField(
        help_text="The status in the words the pages show, e.g. “Deletion requested”; "
        "an unknown code is given as it is."
    )
    size = serializers.IntegerField(allow_null=True, help_text="Bytes; null when not known.")
    current_location_uuid = serializers.CharField(help_text="The location it is stored in.")
    origin_pipeline_uuid = serializers.CharField(help_text="The pipeline that made it.")
    current_path = serializers.CharField(help_text="Its path within its location.")
    current_full_path = serializers.CharField(help_text="Its full path.")
    stored_date = serializers.DateTimeField(allow_null=True, help_text="When it was stored.")
    encrypted = serializers.BooleanField(help_text="Stored encrypted.")
    related_uuids = serializers.ListField(
        child=serializers.CharField(), help_text="Related packages, e.g. an AIP's DIP."
    )
    replica_uuids = serializers.ListField(child=serializers.CharField(), help_text="Its replicas.")
    replicated_package_uuid = serializers.CharField(
        help_text="For a replica, the package it copies; '' otherwise."
    )
    seen_at = serializers.DateTimeField(help_text="When Lookout last synced it.")


class PackageListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        package_type = CaseInsensitiveChoiceField(
            choices=[(code, vocabulary.package_type_label(code)) for code in PACKAGE_TYPES],
            required=False,
            help_text=f"Only packages of this type. {_ANY_CASE}",
        )
        status = CaseInsensitiveChoiceField(
            choices=[(code, vocabulary.package_status(code).text) for code in PACKAGE_STATUSES],
            required=False,
            help_text=f"Only packages in this status. {_ANY_CASE}",
        )
        location = serializers.UUIDField(
            required=False, help_text="Only packages stored in this location."
        )
        pipeline = serializers.UUIDField(
            required=False, help_text="Only packages made by this pipeline (storage-service UUID)."
        )
        q = serializers.CharField(
            required=False,
            max_length=200,
            help_text="A fragment of the name (any case), or the start of the UUID.",
        )
        sort = CaseInsensitiveChoiceField(
            choices=[(key, SORT_LABELS.get(key, key)) for key in storage_selectors.PACKAGE_SORTS],
            required=False,
            help_text=f"Order of the list; newest stored first if absent. {_ANY_CASE}",
        )

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: PackageOutputSerializer(many=True), 400: BAD_FILTER},
        summary="Packages as last synced from the storage service",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = {k: str(v) for k, v in filters.validated_data.items()}
        packages = storage_selectors.package_list(**data)
        return paginated_response(request, self, packages, PackageOutputSerializer)


class PackageDetailApi(APIView):
    @extend_schema_serializer(component_name="StorageFixityCheck")
    class FixitySerializer(serializers.Serializer):
        requested_at = serializers.DateTimeField()
        requested_by = serializers.CharField()
        checked_at = serializers.DateTimeField(allow_null=True)
        success = serializers.BooleanField(allow_null=True)
        message = serializers.CharField()
        failures = serializers.ListField(child=serializers.CharField())
        error = serializers.CharField()

    @extend_schema_serializer(component_name="StoragePackageDetail")
    class OutputSerializer(PackageOutputSerializer):
        misc_attributes = serializers.DictField()
        fixity_checks = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        responses={200: OutputSerializer, 404: OpenApiResponse(description="No such package")},
        summary="One package with its fixity history",
    )
    def get(self, request: Request, uuid: Any) -> Response:
        package = storage_selectors.package_get(uuid=str(uuid))
        if package is None:
            return Response({"detail": _("No such package.")}, status=404)
        checks = storage_selectors.fixity_history(package_uuid=package.uuid)
        data = {
            **_package_fields(package),
            "fixity_checks": self.FixitySerializer(checks, many=True).data,
        }
        return Response(self.OutputSerializer(data).data)


def _package_fields(package: StoragePackage) -> dict[str, Any]:
    return {
        **{
            field.name: getattr(package, field.name)
            for field in StoragePackage._meta.concrete_fields
        },
        "status_label": package.status_label,
    }
