"""API: levels of description and arranged paths' levels, as the levels page shows them.

Reads answer what the tasks stored (`fetching` says a fetch is under way; ask again);
`POST …/levels/fetch/` (admins) and `POST …/path-metadata/` are audited actions with an
`Idempotency-Key` header.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard import tasks
from dashboard.api.transfers import (
    KEY_HEADER,
    action_response,
    action_responses,
    idempotency_key,
)
from dashboard.forms.levels import validate_arranged_path
from dashboard.lib.pipelines import pipeline_get
from dashboard.services import actions
from dashboard.services import levels as level_services

NO_PIPELINE = Response({"detail": _("No such pipeline.")}, 404)
KEY_NEEDED = "An Idempotency-Key header (16-64 characters) is required."
ACTION_RESPONSES = action_responses(
    forbidden="Not allowed for this role", not_found="No such pipeline"
)


def _arranged_path(value: str) -> str:
    try:
        validate_arranged_path(value)
    except forms.ValidationError as exc:
        raise serializers.ValidationError(exc.messages) from None
    return value


def _run(request: Request, permission: str, needs: str, run: Any) -> Response:
    if not request.user.has_perm(permission):
        return Response({"detail": needs}, 403)
    key = idempotency_key(request)
    if key is None:
        return Response({"detail": KEY_NEEDED}, 400)
    try:
        return action_response(run(key))
    except actions.IdempotencyKeyReused:
        return Response({"detail": _("This Idempotency-Key was used for another request.")}, 422)


class LevelListApi(APIView):
    @extend_schema(
        responses={
            200: inline_serializer(
                name="LevelsOfDescription",
                fields={
                    "levels": serializers.ListField(child=serializers.DictField()),
                    "listed_at": serializers.DateTimeField(allow_null=True),
                    "error": serializers.CharField(),
                    "fetching": serializers.BooleanField(),
                },
            ),
            404: OpenApiResponse(description="No such pipeline"),
        },
        summary="The pipeline's levels of description, as last fetched",
    )
    def get(self, request: Request, slug: str) -> Response:
        if pipeline_get(slug) is None:
            return NO_PIPELINE
        stored, fetching = tasks.levels_shown(slug)
        levels = stored.levels if stored is not None else ()
        return Response(
            {
                "levels": [{"uuid": uuid, "name": name} for uuid, name in levels],
                "listed_at": stored.listed_at if stored is not None else None,
                "error": stored.error if stored is not None else "",
                "fetching": fetching,
            }
        )


class LevelFetchApi(APIView):
    @extend_schema(
        request=None,
        parameters=[KEY_HEADER],
        responses=ACTION_RESPONSES,
        summary="Fetch the levels again from the access system (admins)",
        description="Replaces the pipeline's levels with the access system's.",
    )
    def post(self, request: Request, slug: str) -> Response:
        if pipeline_get(slug) is None:
            return NO_PIPELINE
        return _run(
            request,
            level_services.FETCH_LEVELS_PERMISSION,
            "Fetching the levels again needs the admin role.",
            lambda key: level_services.levels_refetch(
                user=request.user, pipeline=slug, idempotency_key=key
            ),
        )


class PathMetadataApi(APIView):
    @extend_schema_serializer(component_name="PathLevelInput")
    class InputSerializer(serializers.Serializer):
        path = serializers.CharField(max_length=1000, help_text="An arranged path, /arrange/…")
        level_of_description = serializers.CharField(
            allow_blank=True, help_text="A level's UUID; empty clears it."
        )

        def validate_path(self, value: str) -> str:
            return _arranged_path(value)

    @extend_schema(
        parameters=[OpenApiParameter("path", str, required=True, description="/arrange/…")],
        responses={
            200: inline_serializer(
                name="PathMetadata",
                fields={
                    "path": serializers.CharField(),
                    "level_of_description": serializers.CharField(allow_null=True),
                    "missing": serializers.BooleanField(),
                    "error": serializers.CharField(),
                    "fetching": serializers.BooleanField(),
                },
            ),
            400: OpenApiResponse(description="Not an arranged path"),
            404: OpenApiResponse(description="No such pipeline"),
        },
        summary="An arranged path's level of description, as last read",
    )
    def get(self, request: Request, slug: str) -> Response:
        if pipeline_get(slug) is None:
            return NO_PIPELINE
        try:
            path = _arranged_path(request.query_params.get("path", ""))
        except serializers.ValidationError as exc:
            return Response({"path": exc.detail}, 400)
        stored, fetching = tasks.path_metadata_shown(slug, path)
        return Response(
            {
                "path": path,
                "level_of_description": stored.level if stored is not None else None,
                "missing": stored.missing if stored is not None else False,
                "error": stored.error if stored is not None else "",
                "fetching": fetching,
            }
        )

    @extend_schema(
        request=InputSerializer,
        parameters=[KEY_HEADER],
        responses=ACTION_RESPONSES,
        summary="Set (or clear) an arranged path's level of description",
    )
    def post(self, request: Request, slug: str) -> Response:
        if pipeline_get(slug) is None:
            return NO_PIPELINE
        data_in = self.InputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        return _run(
            request,
            level_services.SET_LEVEL_PERMISSION,
            "Setting a level of description needs the operator or admin role.",
            lambda key: level_services.path_level_set(
                user=request.user,
                pipeline=slug,
                path=data["path"],
                level_uuid=data["level_of_description"],
                idempotency_key=key,
            ),
        )
