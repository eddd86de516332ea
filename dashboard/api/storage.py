"""Storage read API (/api/v1/pipelines/, spaces/, locations/, packages/).

DRF views over `dashboard.selectors.storage`: the cached summary and the package
mirror. No storage service call happens here. Lists page with `limit` and `offset`.
"""

from __future__ import annotations

from typing import Any

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


@extend_schema_serializer(component_name="StorageUsage")
class UsageSerializer(serializers.Serializer):
    used = serializers.IntegerField()
    limit = serializers.IntegerField(allow_null=True, help_text="Null: unlimited.")
    percent = serializers.FloatField(allow_null=True)


class PipelineListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    @extend_schema_serializer(component_name="StoragePipeline")
    class OutputSerializer(serializers.Serializer):
        uuid = serializers.UUIDField()
        description = serializers.CharField()
        remote_name = serializers.CharField()

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
        access_protocol = serializers.CharField(required=False, max_length=20)

    @extend_schema_serializer(component_name="StorageSpace")
    class OutputSerializer(serializers.Serializer):
        uuid = serializers.UUIDField()
        access_protocol = serializers.CharField()
        path = serializers.CharField()
        location_count = serializers.IntegerField()
        usage = UsageSerializer()

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
        purpose = CaseInsensitiveChoiceField(choices=list(vocabulary.PURPOSES), required=False)
        pipeline = serializers.UUIDField(required=False)
        space = serializers.UUIDField(required=False)

    @extend_schema_serializer(component_name="StorageLocation")
    class OutputSerializer(serializers.Serializer):
        uuid = serializers.UUIDField()
        purpose = serializers.CharField()
        purpose_label = serializers.CharField()
        description = serializers.CharField()
        enabled = serializers.BooleanField()
        path = serializers.CharField()
        relative_path = serializers.CharField()
        space_uuid = serializers.CharField()
        pipeline_uuids = serializers.ListField(child=serializers.CharField())
        usage = UsageSerializer()

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
    uuid = serializers.CharField()
    name = serializers.CharField()
    package_type = serializers.CharField()
    status = serializers.CharField(help_text="The storage service's code, e.g. UPLOADED.")
    status_label = serializers.CharField(
        help_text="The status in the words the pages show, e.g. “Deletion requested”; "
        "an unknown code is given as it is."
    )
    size = serializers.IntegerField(allow_null=True)
    current_location_uuid = serializers.CharField()
    origin_pipeline_uuid = serializers.CharField()
    current_path = serializers.CharField()
    current_full_path = serializers.CharField()
    stored_date = serializers.DateTimeField(allow_null=True)
    encrypted = serializers.BooleanField()
    related_uuids = serializers.ListField(child=serializers.CharField())
    replica_uuids = serializers.ListField(child=serializers.CharField())
    replicated_package_uuid = serializers.CharField()
    seen_at = serializers.DateTimeField()


class PackageListApi(APIView):
    # Tells the schema these answers are pages ({count, next, previous, results}).
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        package_type = CaseInsensitiveChoiceField(
            choices=storage_selectors.PACKAGE_TYPES, required=False
        )
        status = CaseInsensitiveChoiceField(
            choices=storage_selectors.PACKAGE_STATUSES, required=False
        )
        location = serializers.UUIDField(required=False)
        pipeline = serializers.UUIDField(required=False)
        q = serializers.CharField(
            required=False, max_length=200, help_text="Name fragment or UUID (prefix)."
        )
        sort = CaseInsensitiveChoiceField(
            choices=list(storage_selectors.PACKAGE_SORTS), required=False
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
            return Response({"detail": "No such package."}, status=404)
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
