"""Read API of processing configurations: each configured name's decisions in words.

As on the pages, nothing waits on the workflow service: a configuration not stored yet
(or stored a while ago) is fetched by a task, and the answer says `state: loading`
until it is there. The XML is included in the detail answer as the service gave it.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard import tasks
from dashboard.lib.pipelines import pipeline_get
from dashboard.selectors.processing_configs import StoredConfig, processing_config_names


@extend_schema_serializer(component_name="ProcessingConfigDecision")
class DecisionSerializer(serializers.Serializer):
    question = serializers.CharField(help_text="The decision point, in words.")
    answer = serializers.CharField(help_text="The preset answer, in words.")
    group = serializers.CharField(help_text="The workflow step that asks; '' when unknown.")
    applies_to = serializers.CharField(help_text="appliesTo in the XML.")
    value = serializers.CharField(help_text="goToChain in the XML.")
    xml_label = serializers.CharField(
        source="label", allow_null=True, help_text="The XML's own comment, as written."
    )


@extend_schema_serializer(component_name="ProcessingConfig")
class ConfigSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The configuration's name in the workflow service.")
    state = serializers.ChoiceField(
        choices=["loading", "fetched", "missing", "error"],
        help_text="missing: the workflow service has no configuration by this name.",
    )
    refreshing = serializers.BooleanField(help_text="A task is fetching it again now.")
    fetched_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was last fetched; null before the first time."
    )
    error = serializers.CharField(help_text="The last fetch's error, in words ('' if none).")
    decisions = DecisionSerializer(many=True, help_text="Its preset decisions, in words.")


@extend_schema_serializer(component_name="ProcessingConfigDetail")
class ConfigDetailSerializer(ConfigSerializer):
    xml = serializers.CharField(allow_null=True)


def _state(stored: StoredConfig | None) -> str:
    if stored is None:
        return "loading"
    if stored.missing:
        return "missing"
    return "fetched" if stored.fetched else "error"


def _shown(name: str, stored: StoredConfig | None, waiting: bool) -> dict[str, Any]:
    return {
        "name": name,
        "state": _state(stored),
        "refreshing": waiting,
        "fetched_at": stored.fetched_at if stored else None,
        "error": stored.error if stored else "",
        "decisions": [d.__dict__ for d in stored.decisions] if stored else [],
        "xml": stored.xml if stored else None,
    }


class ProcessingConfigListApi(APIView):
    @extend_schema(
        responses={
            200: ConfigSerializer(many=True),
            404: OpenApiResponse(description="No such pipeline"),
        },
        summary="A pipeline's processing configurations (as its service lists them, else as "
        "configured), decisions in words",
    )
    def get(self, request: Request, slug: str) -> Response:
        pipeline = pipeline_get(slug)
        if pipeline is None:
            return Response({"detail": "No such pipeline."}, 404)
        rows = [
            _shown(name, *tasks.processing_config_shown(slug, name))
            for name in tasks.processing_config_names_shown(pipeline)
        ]
        return Response(ConfigSerializer(rows, many=True).data)


class ProcessingConfigDetailApi(APIView):
    @extend_schema(
        responses={
            200: ConfigDetailSerializer,
            404: OpenApiResponse(description="No such pipeline or configuration"),
        },
        summary="One processing configuration: decisions in words and the raw XML",
    )
    def get(self, request: Request, slug: str, name: str) -> Response:
        pipeline = pipeline_get(slug)
        if pipeline is None:
            return Response({"detail": "No such pipeline."}, 404)
        if name not in processing_config_names(pipeline=pipeline):
            return Response({"detail": "Not one of the pipeline's processing configurations."}, 404)
        return Response(
            ConfigDetailSerializer(_shown(name, *tasks.processing_config_shown(slug, name))).data
        )
