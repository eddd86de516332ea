"""Ingest runs over the API (/api/v1/ingest-runs/): create, read, list items, steer.

Reading needs any role; creating and steering need `run_ingest` (operators, admins), an
`Idempotency-Key` header, and write an audit row, as the run form does. Bad input
answers 400 with a message per field, the folder checked through the storage service.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dashboard.api.pagination import BAD_FILTER, ApiPagination, paginated_response
from dashboard.api.transfers import KEY_HEADER, action_response, action_responses, idempotency_key
from dashboard.lib import ingest_names, vocabulary
from dashboard.models import IngestItem, IngestRun
from dashboard.selectors import ingest as ingest_selectors
from dashboard.services import actions, ingest_runs

NEEDS_ROLE = "Ingest runs need the operator or admin role."
NO_KEY = "An Idempotency-Key header (16-64 characters) is required."
KEY_REUSED = "This Idempotency-Key was used for another request."


class RunOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The run's id.")
    name = serializers.CharField(help_text="The run's name.")
    status = serializers.ChoiceField(
        choices=IngestRun.Status.choices,
        help_text="The run's status.",
    )
    source_location = serializers.CharField(help_text="The transfer source location's UUID.")
    path = serializers.CharField(source="path_shown", help_text="The folder, as text.")
    pipelines = serializers.ListField(
        child=serializers.CharField(), help_text="The slugs of the pipelines it uses."
    )
    processing_config = serializers.DictField(
        child=serializers.CharField(), source="processing_configs", help_text="Per pipeline."
    )
    transfer_type = serializers.CharField(help_text="The transfer type of every item.")
    accession = serializers.CharField(help_text="The pattern: {n} and {name}.")
    auto_approve = serializers.BooleanField(help_text="Transfers are approved automatically.")
    max_in_flight = serializers.IntegerField(help_text="The most items in flight per pipeline.")
    window = serializers.CharField(help_text="HH:MM-HH:MM in each pipeline's time zone, or ''.")
    depth = serializers.IntegerField(help_text="1: the folder's children; 2: grandchildren.")
    watch = serializers.BooleanField(help_text="The folder is watched for new children.")
    settle_seconds = serializers.IntegerField(
        help_text="How long a new child must stay unchanged before it is queued."
    )
    hide_when_stored = serializers.BooleanField(
        help_text="Transfer and SIP are hidden in the workflow service once stored."
    )
    skip_existing = serializers.BooleanField(
        help_text="Names already stored or known to Lookout are skipped."
    )
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="By item state.")
    items_total = serializers.IntegerField(help_text="Items listed so far.")
    waits = serializers.DictField(
        child=serializers.CharField(), help_text="Why a pipeline receives nothing now, by slug."
    )
    scan_error = serializers.CharField(help_text="Why the folder could not be listed.")
    created_by = serializers.CharField(source="created_by_name", help_text="Who created it.")
    created_at = serializers.DateTimeField(help_text="When it was created.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When it started.")
    finished_at = serializers.DateTimeField(allow_null=True, help_text="When it ended.")
    eta = serializers.DateTimeField(
        allow_null=True, help_text="When the items left should be done, at the measured rate."
    )


def _run_body(run: IngestRun) -> dict[str, Any]:
    summary = ingest_selectors.ingest_run_summary(run)
    return RunOutputSerializer(
        {
            **{f.attname: getattr(run, f.attname) for f in IngestRun._meta.concrete_fields},
            "id": run.pk,
            "window": ingest_names.window_text(run.window_start, run.window_end),
            "counts": summary.counts,
            "items_total": summary.items_total,
            "waits": summary.waits,
            "eta": summary.eta,
        }
    ).data


class ItemOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="Its place in the run ({n}).")
    path = serializers.CharField(source="path_shown", help_text="Relative to the run's folder.")
    name = serializers.CharField(help_text="The transfer's name.")
    accession = serializers.CharField(help_text="Its accession number.")
    state = serializers.ChoiceField(choices=IngestItem.State.choices, help_text="Its state.")
    pipeline = serializers.CharField(help_text="The pipeline it went to ('' before).")
    transfer_uuid = serializers.CharField(allow_null=True, help_text="Its transfer.")
    sip_uuid = serializers.CharField(allow_null=True, help_text="The SIP it became.")
    aip_uuid = serializers.CharField(allow_null=True, help_text="The AIP stored.")
    aip_location = serializers.CharField(help_text="The AIP's storage location UUID.")
    attempts = serializers.IntegerField(help_text="Starts claimed for it.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When it started.")
    finished_at = serializers.DateTimeField(allow_null=True, help_text="When it ended.")
    failed_job = serializers.CharField(help_text="The job it failed at, from upstream.")
    failed_at = serializers.DateTimeField(
        allow_null=True, help_text="When it failed, from upstream."
    )
    reason = serializers.CharField(help_text="Why it is skipped, failed or waits.")


class RunInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, trim_whitespace=True)
    source_location = serializers.UUIDField(help_text="A transfer source location's UUID.")
    path = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="The folder relative to the location, as text ('' for the location itself).",
    )
    path_b64 = serializers.CharField(
        required=False, help_text="Or the folder as base64 of its raw bytes (any name)."
    )
    pipelines = serializers.ListField(child=serializers.CharField(), min_length=1)
    processing_config = serializers.JSONField(
        required=False,
        help_text="A name for every pipeline, or an object {slug: name}.",
    )
    transfer_type = serializers.ChoiceField(
        choices=list(vocabulary.TRANSFER_TYPES), default="standard"
    )
    accession = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Pattern: {n:04}, {name}."
    )
    auto_approve = serializers.BooleanField(default=True)
    max_in_flight = serializers.IntegerField(default=2, help_text="Per pipeline, at least 1.")
    window = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="e.g. 19:00-07:00, or ''."
    )
    watch = serializers.BooleanField(default=False)
    settle_seconds = serializers.IntegerField(default=600)
    depth = serializers.IntegerField(default=1, help_text="1 children, 2 grandchildren.")
    hide_when_stored = serializers.BooleanField(default=False)
    skip_existing = serializers.BooleanField(default=True)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("path_b64"):
            try:
                raw = base64.b64decode(data["path_b64"], validate=True)
            except (binascii.Error, ValueError):
                raise serializers.ValidationError({"path_b64": "Not base64."}) from None
        else:
            raw = str(data.get("path") or "").encode("utf-8")
        parts = [part for part in raw.split(b"/") if part not in (b"", b".")]
        if b".." in parts or b"\0" in raw:
            raise serializers.ValidationError({"path": "A path may not go up a directory."})
        data["raw_path"] = b"/".join(parts)
        config = data.get("processing_config", "default")
        if isinstance(config, str):
            data["processing_configs"] = {slug: config for slug in data["pipelines"]}
        elif isinstance(config, dict) and all(isinstance(v, str) for v in config.values()):
            data["processing_configs"] = {str(k): v for k, v in config.items()}
        else:
            raise serializers.ValidationError(
                {"processing_config": "A name, or an object of names by pipeline slug."}
            )
        return data


def _request_from(data: dict[str, Any]) -> ingest_runs.IngestRunRequest:
    return ingest_runs.IngestRunRequest(
        name=data["name"],
        source_location=str(data["source_location"]),
        path=data["raw_path"],
        pipelines=tuple(data["pipelines"]),
        processing_configs=data["processing_configs"],
        transfer_type=data["transfer_type"],
        accession=data["accession"],
        auto_approve=data["auto_approve"],
        max_in_flight=data["max_in_flight"],
        window=data["window"],
        depth=data["depth"],
        watch=data["watch"],
        settle_seconds=data["settle_seconds"],
        hide_when_stored=data["hide_when_stored"],
        skip_existing=data["skip_existing"],
    )


CreatedSerializer = inline_serializer(
    name="IngestRunCreated",
    fields={
        "id": serializers.IntegerField(),
        "outcome": serializers.CharField(),
        "repeated": serializers.BooleanField(),
        "audit_id": serializers.IntegerField(),
    },
)


class IngestRunListApi(APIView):
    pagination_class = ApiPagination

    @extend_schema(
        responses={200: RunOutputSerializer(many=True)},
        summary="Ingest runs, newest first",
    )
    def get(self, request: Request) -> Response:
        paginator = ApiPagination()
        page = paginator.paginate_queryset(ingest_selectors.ingest_run_list(), request, view=self)
        return paginator.get_paginated_response([_run_body(run) for run in page or []])

    @extend_schema(
        request=RunInputSerializer,
        parameters=[KEY_HEADER],
        responses={
            201: CreatedSerializer,
            200: CreatedSerializer,
            400: OpenApiResponse(description="Invalid input (a message per field)"),
            403: OpenApiResponse(description=NEEDS_ROLE),
            422: OpenApiResponse(description=KEY_REUSED),
        },
        summary="Create an ingest run over a folder of a transfer source location",
        description="The folder is checked through the storage service (it must exist and "
        "hold at least one folder or zip/7z/tar file). The run is queued: the scheduler "
        "lists its items and starts them within the cap per pipeline.",
    )
    def post(self, request: Request) -> Response:
        if not request.user.has_perm(ingest_runs.RUN_PERMISSION):
            return Response({"detail": NEEDS_ROLE}, 403)
        key = idempotency_key(request)
        if key is None:
            return Response({"detail": NO_KEY}, 400)
        data_in = RunInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        try:
            created = ingest_runs.ingest_run_create(
                user=request.user,
                request=_request_from(data_in.validated_data),
                idempotency_key=key,
            )
        except ingest_runs.IngestRunInvalid as exc:
            return Response(exc.errors, 400)
        except actions.IdempotencyKeyReused:
            return Response({"detail": KEY_REUSED}, 422)
        result = created.result
        if created.run is None:
            return action_response(result)
        body = {
            "id": created.run.pk,
            "outcome": result.entry.outcome,
            "repeated": result.repeated,
            "audit_id": result.entry.pk,
        }
        return Response(body, 200 if result.repeated else 201)


def _run_or_404(run_id: int) -> IngestRun | Response:
    run = ingest_selectors.ingest_run_get(run_id=run_id)
    return run if run is not None else Response({"detail": "No such ingest run."}, 404)


class IngestRunDetailApi(APIView):
    @extend_schema(
        responses={200: RunOutputSerializer, 404: OpenApiResponse(description="No such run")},
        summary="One ingest run: status, counts by item state, ETA",
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = _run_or_404(run_id)
        return run if isinstance(run, Response) else Response(_run_body(run))


class IngestItemListApi(APIView):
    pagination_class = ApiPagination

    class FilterSerializer(serializers.Serializer):
        state = serializers.ChoiceField(
            choices=IngestItem.State.choices, required=False, help_text="Only items in this state."
        )

    @extend_schema(
        parameters=[FilterSerializer],
        responses={200: ItemOutputSerializer(many=True), 400: BAD_FILTER, 404: OpenApiResponse()},
        summary="The items of an ingest run, in their order",
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = _run_or_404(run_id)
        if isinstance(run, Response):
            return run
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        items = ingest_selectors.ingest_item_list(
            run=run, state=filters.validated_data.get("state")
        )
        return paginated_response(request, self, items, ItemOutputSerializer)


Steer = Callable[..., actions.ActionResult]


def _steering_view(name: str, steer: Steer, summary: str) -> type[APIView]:
    class SteerApi(APIView):
        @extend_schema(
            request=None,
            parameters=[KEY_HEADER],
            responses=action_responses(forbidden=NEEDS_ROLE, not_found="No such run"),
            summary=summary,
        )
        def post(self, request: Request, run_id: int) -> Response:
            if not request.user.has_perm(ingest_runs.RUN_PERMISSION):
                return Response({"detail": NEEDS_ROLE}, 403)
            key = idempotency_key(request)
            if key is None:
                return Response({"detail": NO_KEY}, 400)
            run = _run_or_404(run_id)
            if isinstance(run, Response):
                return run
            try:
                result = steer(user=request.user, run=run, idempotency_key=key)
            except actions.IdempotencyKeyReused:
                return Response({"detail": KEY_REUSED}, 422)
            return action_response(result)

    SteerApi.__name__ = SteerApi.__qualname__ = name
    return SteerApi


IngestRunPauseApi = _steering_view(
    "IngestRunPauseApi", ingest_runs.ingest_run_pause, "Pause an ingest run: nothing new starts"
)
IngestRunResumeApi = _steering_view(
    "IngestRunResumeApi", ingest_runs.ingest_run_resume, "Resume a paused ingest run"
)
IngestRunCancelApi = _steering_view(
    "IngestRunCancelApi",
    ingest_runs.ingest_run_cancel,
    "Cancel an ingest run: queued items are skipped, started ones go on untouched",
)
IngestRunRetryFailedApi = _steering_view(
    "IngestRunRetryFailedApi",
    ingest_runs.ingest_run_retry_failed,
    "Queue each failed item of a run again, once",
)
