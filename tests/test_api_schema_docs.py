"""Every list in /api/v1/ documents its filters and its fields in the OpenAPI schema, and
the schema is made without a warning and validates.

The filters expected are read from each view's own code (its FilterSerializer and its
paging), not from a list kept here: a filter added to a view without a description, or
a description of a filter the view does not read, fails these tests.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from rest_framework import serializers

# Stand-ins for path parameters, so a schema path resolves to its view.
PATH_VALUES = {
    "{uuid}": "00000000-0000-4000-8000-000000000000",
    "{slug}": "default",
    "{name}": "default",
    "{run_id}": "1",
}
# Lists the walk below must find: a walk that found none would check nothing.
KNOWN_LISTS = {
    "/api/v1/units/",
    "/api/v1/waiting/",
    "/api/v1/health/",
    "/api/v1/pipelines/",
    "/api/v1/spaces/",
    "/api/v1/locations/",
    "/api/v1/packages/",
    "/api/v1/pipelines/{slug}/processing-configurations/",
    "/api/v1/ingest-runs/",
    "/api/v1/ingest-runs/{run_id}/items/",
}


def _schema() -> dict[str, Any]:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(raw))


SCHEMA = _schema()


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = SCHEMA["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _list_item(operation: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of one item, if the operation answers a list (plain or paged)."""
    content = operation["responses"].get("200", {}).get("content", {})
    body = content.get("application/json", {}).get("schema")
    if body is None:
        return None
    body = _resolved(body)
    if body.get("type") == "array":
        return _resolved(body["items"])
    results = body.get("properties", {}).get("results")
    if results and results.get("type") == "array":
        return _resolved(results["items"])
    return None


def _list_operations() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    found = []
    for path, operations in SCHEMA["paths"].items():
        operation = operations.get("get")
        item = _list_item(operation) if operation else None
        if item is not None:
            found.append((path, operation, item))
    return found


LISTS = _list_operations()


def _view_class(path: str) -> type:
    for placeholder, value in PATH_VALUES.items():
        path = path.replace(placeholder, value)
    return resolve(path).func.cls  # type: ignore[attr-defined]  # DRF's as_view sets it


def _filters_in_code(view_class: type) -> dict[str, serializers.Field | None]:
    """The query parameters the view reads: its filter serializer's fields and paging."""
    found: dict[str, serializers.Field | None] = {}
    filter_serializer = getattr(view_class, "FilterSerializer", None)
    if filter_serializer is not None:
        found.update(filter_serializer().fields)
    paging = getattr(view_class, "pagination_class", None)
    if paging is not None:
        found[paging.limit_query_param] = None
        found[paging.offset_query_param] = None
    return found


def _query_parameters(operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "query"}


def test_the_walk_finds_every_list():
    assert {path for path, _, _ in LISTS} >= KNOWN_LISTS


@pytest.mark.parametrize(
    "path,operation", [(p, o) for p, o, _ in LISTS], ids=[p for p, _, _ in LISTS]
)
def test_every_list_documents_each_filter_its_view_reads(path, operation):
    expected = _filters_in_code(_view_class(path))
    documented = _query_parameters(operation)

    assert set(documented) == set(expected)
    for name, field in expected.items():
        parameter = documented[name]
        assert parameter.get("description", "").strip(), f"{path}?{name} has no description"
        assert parameter["schema"].get("type"), f"{path}?{name} has no type"
        if isinstance(field, serializers.ChoiceField):
            assert parameter["schema"].get("enum") == list(field.choices), name
            # Each choice is explained, not only listed.
            for code, label in field.choices.items():
                assert f"`{code}` - {label}" in parameter["description"], (name, code)
        if field is not None and field.help_text:
            assert str(field.help_text) in parameter["description"], name


@pytest.mark.parametrize("path,item", [(p, i) for p, _, i in LISTS], ids=[p for p, _, _ in LISTS])
def test_every_list_documents_each_field_of_its_items(path, item):
    undocumented = [
        name
        for name, field in item["properties"].items()
        if not str(field.get("description", "")).strip()
    ]

    assert undocumented == [], f"{path}: fields without a description"


def test_the_schema_is_made_without_a_warning_and_validates(tmp_path):
    errors = io.StringIO()

    # --fail-on-warn stops with an error on any warning; --validate checks it against
    # the OpenAPI 3 specification.
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(tmp_path / "schema.yaml"),
        stderr=errors,
    )

    assert errors.getvalue() == ""
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3")
