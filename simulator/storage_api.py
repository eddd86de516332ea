"""The fake storage service's HTTP API (`/api/v2/`), as a WSGI app.

It answers the way the real service (release 0.23.0) does, quirks included: 401 with
an empty body, 301 to the slashed URL, `{meta, objects}` pages whose `next` repeats the
caller's query (credentials too), base64 browse names, plain text 404s from custom
endpoints and a 202 instead of a file for packages kept in an external archival store.
Package operations follow what that release does: deletion and recovery requests name
the pipeline by its bare UUID, `reingest_type` is compared lower-cased and anything
unknown reingests the METS only, a move shows MOVING for a moment. With
`--legacy-quirks` big integers (sizes, usage, quotas) go out as strings, as releases
before 0.17 sent them. Downloads are streamed from a generator, so even a package of
hundreds of gigabytes costs no memory.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import mimetypes
import re
import uuid as uuid_module
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from simulator import storage as st
from simulator.storage import Location, Package, Pipeline, Space, StorageError, StorageState
from simulator.tastypie_lists import (
    ALL,
    ALL_WITH_RELATIONS,
    FieldSpec,
    Filter,
    ListQueryError,
    ResourceSpec,
    invalid_uuid_message,
    page_meta,
    parse_list_query,
    select_page,
)
from simulator.wsgi import (
    Environ,
    Request,
    Response,
    Router,
    StartResponse,
    json_response,
    status_line,
    text_response,
)

logger = logging.getLogger(__name__)

HTML = "text/html; charset=utf-8"
CANNED_500 = {
    "error_message": "Sorry, this request could not be processed. Please try again later."
}
NOT_LOCALLY_AVAILABLE = (
    "File is not locally available.  Contact your storage administrator to fetch it."
)
COMMON_HEADERS = [
    ("X-Frame-Options", "DENY"),
    ("Content-Language", "en"),
    ("Vary", "Accept, Accept-Language, Cookie"),
]
# Bytes per chunk of the chunked download form.
DOWNLOAD_CHUNK_SIZE = 256 * 1024 * 1024
STREAM_BLOCK_SIZE = 64 * 1024
APPROVAL_ID_WORD = {st.DELETE_REQUEST: "Delete", st.RECOVER_REQUEST: "Recover"}
DUPLICATE_REQUEST_WORD = {st.DELETE_REQUEST: "deletion", st.RECOVER_REQUEST: "recovery"}
# The key of the "already requested" answer: release 0.23.0 differs between the two.
DUPLICATE_REQUEST_KEY = {st.DELETE_REQUEST: "message", st.RECOVER_REQUEST: "error_message"}
REQUEST_TYPES = {st.DELETE_REQUEST: st.DELETABLE_TYPES, st.RECOVER_REQUEST: st.RECOVERABLE_TYPES}
REFUSED_TYPE_MESSAGE = {
    st.DELETE_REQUEST: "Deletes not allowed on this package type.",
    st.RECOVER_REQUEST: "Recovery not allowed on this package type.",
}

NOT_FOUND_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Page not found</title></head>
<body>
<h1>Page not found</h1>
<p>The page you requested does not exist on this storage service.</p>
</body>
</html>
"""


# --- URIs and JSON shapes ---------------------------------------------------------------


def pipeline_uri(pipeline: Pipeline) -> str:
    return f"/api/v2/pipeline/{pipeline.uuid}/"


def space_uri(space: Space) -> str:
    return f"/api/v2/space/{space.uuid}/"


def location_uri(location: Location) -> str:
    return f"/api/v2/location/{location.uuid}/"


def package_uri(package: Package) -> str:
    return f"/api/v2/file/{package.uuid}/"


def pipeline_json(pipeline: Pipeline) -> dict[str, Any]:
    return {
        "description": pipeline.description,
        "remote_name": pipeline.remote_name,
        "resource_uri": pipeline_uri(pipeline),
        "uuid": pipeline.uuid,
    }


def big_integer(value: int | None, *, legacy: bool) -> int | str | None:
    """A big-integer column: a number, or a string as releases before 0.17 sent it."""
    return str(value) if legacy and value is not None else value


def space_json(space: Space, *, legacy: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "access_protocol": space.access_protocol,
        "id": space.id,
        "last_verified": None if space.last_verified is None else space.last_verified.isoformat(),
        "path": space.path,
        "resource_uri": space_uri(space),
        "size": space.size,
        "space": space.uuid,
        "staging_path": space.staging_path,
        "used": big_integer(space.used, legacy=legacy),
        "uuid": space.uuid,
        "verified": space.verified,
    }
    for name, value in space.protocol_fields.items():
        if name not in st.SECRET_PROTOCOL_FIELDS:
            data[name] = value
    return data


def location_json(location: Location, *, legacy: bool = False) -> dict[str, Any]:
    return {
        "description": location.description,
        "enabled": location.enabled,
        "path": location.path,
        "pipeline": [pipeline_uri(pipeline) for pipeline in location.pipelines],
        "purpose": location.purpose,
        "quota": big_integer(location.quota, legacy=legacy),
        "relative_path": location.relative_path,
        "resource_uri": location_uri(location),
        "space": space_uri(location.space),
        "used": big_integer(location.used, legacy=legacy),
        "uuid": location.uuid,
    }


def package_json(storage: StorageState, package: Package) -> dict[str, Any]:
    stored = storage.server_time(package.stored_date)
    return {
        "current_full_path": package.current_full_path,
        "current_location": location_uri(package.location),
        "current_path": package.current_path,
        "encrypted": package.encrypted,
        "misc_attributes": dict(package.misc_attributes),
        "origin_pipeline": None
        if package.origin_pipeline is None
        else pipeline_uri(package.origin_pipeline),
        "package_type": package.package_type,
        "related_packages": [package_uri(related) for related in package.related],
        "replicas": [package_uri(replica) for replica in package.replicas],
        "replicated_package": (
            None if package.replicated_package is None else package_uri(package.replicated_package)
        ),
        "resource_uri": package_uri(package),
        "size": str(package.size) if package.size_as_string else package.size,
        "status": package.status,
        "stored_date": None if stored is None else stored.isoformat(),
        "uuid": package.uuid,
    }


def async_json(storage: StorageState, task: st.AsyncTask) -> dict[str, Any]:
    def iso(moment: Any) -> str | None:
        local = storage.server_time(moment)
        return None if local is None else local.isoformat()

    data: dict[str, Any] = {
        "completed": task.completed,
        "completed_time": iso(task.completed_at),
        "created_time": iso(task.created_at),
        "id": task.id,
        "resource_uri": f"/api/v2/async/{task.id}/",
        "updated_time": iso(task.updated_at),
        "was_error": task.was_error,
    }
    if task.result is not None:
        data["result"] = task.result
    if task.was_error:
        data["error"] = task.error
    return data


# --- Resource descriptions (fields, filtering, schema) -----------------------------------


def _attr(name: str) -> Callable[[Any], Any]:
    return lambda obj: getattr(obj, name)


def _build_registry(stored_date: Callable[[Package], Any]) -> dict[str, ResourceSpec]:
    """The five resources. `stored_date` reads a package's date as the service shows it."""
    uri = FieldSpec("resource_uri", readonly=True, help_text="URI of this resource.")
    pipeline = ResourceSpec(
        "pipeline",
        (
            FieldSpec(
                "api_key",
                getter=_attr("api_key"),
                hidden=True,
                blank=True,
                help_text="API key to use when making API calls to the pipeline.",
            ),
            FieldSpec(
                "api_username",
                getter=_attr("api_username"),
                hidden=True,
                blank=True,
                help_text="Username to use when making API calls to the pipeline.",
            ),
            FieldSpec(
                "description",
                getter=_attr("description"),
                filtering=ALL,
                nullable=True,
                blank=True,
                help_text="Human readable description of the pipeline.",
            ),
            FieldSpec(
                "remote_name",
                getter=_attr("remote_name"),
                nullable=True,
                blank=True,
                help_text="Host or IP address of the pipeline server for making API calls.",
            ),
            uri,
            FieldSpec(
                "uuid",
                kind="uuid",
                getter=_attr("uuid"),
                filtering=ALL,
                unique=True,
                help_text="Identifier of the pipeline.",
            ),
        ),
        list_methods=("get", "post"),
        detail_methods=("get",),
    )
    space = ResourceSpec(
        "space",
        (
            FieldSpec(
                "access_protocol",
                getter=_attr("access_protocol"),
                filtering=ALL,
                help_text="How the space can be accessed.",
            ),
            FieldSpec(
                "id",
                kind="integer",
                getter=_attr("id"),
                primary_key=True,
                unique=True,
                readonly=True,
            ),
            FieldSpec(
                "last_verified",
                kind="datetime",
                getter=_attr("last_verified"),
                nullable=True,
                help_text="Time this location was last verified to be accessible.",
            ),
            FieldSpec(
                "path",
                getter=_attr("path"),
                filtering=ALL,
                blank=True,
                help_text="Absolute path to the space on the storage service machine.",
            ),
            uri,
            FieldSpec(
                "size",
                kind="integer",
                getter=_attr("size"),
                filtering=ALL,
                nullable=True,
                help_text="Size in bytes (optional)",
            ),
            FieldSpec("space", getter=_attr("uuid"), readonly=True, help_text="UUID of the space."),
            FieldSpec(
                "staging_path",
                getter=_attr("staging_path"),
                help_text="Absolute path to a staging area.",
            ),
            FieldSpec(
                "used",
                kind="integer",
                getter=_attr("used"),
                filtering=ALL,
                default=0,
                help_text="Amount used in bytes",
            ),
            FieldSpec("uuid", kind="uuid", getter=_attr("uuid"), filtering=ALL, unique=True),
            FieldSpec(
                "verified",
                kind="boolean",
                getter=_attr("verified"),
                default=False,
                help_text="Whether or not the space has been verified to be accessible.",
            ),
        ),
        list_methods=("get", "post"),
        detail_methods=("get",),
    )
    location = ResourceSpec(
        "location",
        (
            FieldSpec(
                "description",
                getter=_attr("description"),
                filtering=ALL,
                nullable=True,
                readonly=True,
                help_text="Human-readable description.",
            ),
            FieldSpec(
                "enabled",
                kind="boolean",
                getter=_attr("enabled"),
                default=True,
                help_text="True if space can be accessed.",
            ),
            FieldSpec("path", readonly=True, help_text="Full path of the location."),
            FieldSpec(
                "pipeline",
                kind="related",
                getter=_attr("pipelines"),
                filtering=ALL_WITH_RELATIONS,
                related="pipeline",
                related_type="to_many",
                blank=True,
                help_text="Pipelines that use this location.",
            ),
            FieldSpec(
                "purpose",
                getter=_attr("purpose"),
                filtering=ALL,
                help_text="Purpose of the space. Eg. AIP storage, Transfer source",
            ),
            FieldSpec(
                "quota",
                kind="integer",
                getter=_attr("quota"),
                filtering=ALL,
                nullable=True,
                default=None,
                help_text="Size, in bytes (optional)",
            ),
            FieldSpec(
                "relative_path",
                getter=_attr("relative_path"),
                filtering=ALL,
                blank=True,
                help_text="Path to location, relative to the storage space's path.",
            ),
            FieldSpec("resource_uri", readonly=True),
            FieldSpec(
                "space",
                kind="related",
                getter=_attr("space"),
                filtering=ALL_WITH_RELATIONS,
                related="space",
                related_type="to_one",
            ),
            FieldSpec(
                "used",
                kind="integer",
                getter=_attr("used"),
                filtering=ALL,
                default=0,
                help_text="Amount used, in bytes.",
            ),
            FieldSpec("uuid", kind="uuid", getter=_attr("uuid"), filtering=ALL, unique=True),
        ),
        list_methods=("get", "post"),
        detail_methods=("get", "post"),
    )
    package = ResourceSpec(
        "file",
        (
            FieldSpec("current_full_path", readonly=True, help_text="Full path of the package."),
            FieldSpec(
                "current_location",
                kind="related",
                getter=_attr("location"),
                filtering=ALL_WITH_RELATIONS,
                related="location",
                related_type="to_one",
            ),
            FieldSpec(
                "current_path",
                getter=_attr("current_path"),
                filtering=ALL,
                help_text="Path to the package, relative to its location.",
            ),
            FieldSpec("encrypted", kind="boolean", getter=_attr("encrypted"), default=False),
            FieldSpec(
                "misc_attributes",
                kind="dict",
                nullable=True,
                default={},
                help_text="For storing flexible, often Space-specific, attributes",
            ),
            FieldSpec(
                "origin_pipeline",
                kind="related",
                getter=_attr("origin_pipeline"),
                nullable=True,
                related="pipeline",
                related_type="to_one",
            ),
            FieldSpec("package_type", getter=_attr("package_type"), filtering=ALL),
            FieldSpec(
                "related_packages",
                kind="related",
                getter=_attr("related"),
                filtering=ALL_WITH_RELATIONS,
                related="file",
                related_type="to_many",
                blank=True,
            ),
            FieldSpec(
                "replicas",
                kind="related",
                getter=_attr("replicas"),
                related="file",
                related_type="to_many",
                blank=True,
                readonly=True,
            ),
            FieldSpec(
                "replicated_package",
                kind="related",
                getter=_attr("replicated_package"),
                nullable=True,
                related="file",
                related_type="to_one",
            ),
            FieldSpec("resource_uri", readonly=True),
            FieldSpec(
                "size",
                kind="integer",
                getter=_attr("size"),
                filtering=ALL,
                default=0,
                help_text="Size in bytes of the package",
            ),
            FieldSpec(
                "status",
                getter=_attr("status"),
                filtering=ALL,
                default=st.FAIL,
                help_text="Status of the package in the storage service.",
            ),
            FieldSpec(
                "stored_date", kind="datetime", getter=stored_date, filtering=ALL, nullable=True
            ),
            FieldSpec("uuid", kind="uuid", getter=_attr("uuid"), filtering=ALL, unique=True),
        ),
        list_methods=("get", "post"),
        detail_methods=("get", "put", "patch"),
    )
    async_resource = ResourceSpec(
        "async",
        (
            FieldSpec("completed", kind="boolean", getter=_attr("completed"), default=False),
            FieldSpec(
                "completed_time", kind="datetime", getter=_attr("completed_at"), nullable=True
            ),
            FieldSpec("created_time", kind="datetime", getter=_attr("created_at")),
            FieldSpec("id", kind="integer", getter=_attr("id"), primary_key=True, unique=True),
            FieldSpec("resource_uri", readonly=True),
            FieldSpec("updated_time", kind="datetime", getter=_attr("updated_at")),
            FieldSpec("was_error", kind="boolean", getter=_attr("was_error"), default=False),
        ),
        key_field="id",
    )
    return {spec.name: spec for spec in (pipeline, space, location, package, async_resource)}


# --- Responses the service gives in many places --------------------------------------------


def error_response(error: StorageError) -> Response:
    if error.payload is None:
        return Response(error.status, b"", HTML)
    if isinstance(error.payload, str):
        return text_response(error.payload, error.status, HTML)
    return json_response(error.payload, error.status)


def unknown_uri(kind: str, value: Any) -> StorageError:
    return StorageError(
        400, {"error": f"Could not find the provided {kind} object via resource URI '{value}'."}
    )


def missing_value(name: str, *, default_allowed: bool = True) -> StorageError:
    allowed = "a default or null value" if default_allowed else "a null value"
    return StorageError(
        400, {"error": f"The '{name}' field has no data and doesn't allow {allowed}."}
    )


def no_such_resource(value: str) -> StorageError:
    return StorageError(404, f"Resource with UUID {value} does not exist")


def canned_500() -> Response:
    return json_response(CANNED_500, 500)


@dataclass
class StreamingResponse(Response):
    """A response whose body comes from a generator, never held in memory."""

    chunks: Callable[[], Iterable[bytes]] | None = None
    length: int = 0

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        headers = list(self.headers)
        if self.content_type is not None:
            headers.append(("Content-Type", self.content_type))
        headers.append(("Content-Length", str(self.length)))
        start_response(status_line(self.status), headers)
        if environ.get("REQUEST_METHOD") == "HEAD" or self.chunks is None:
            return [b""]
        return self.chunks()


def package_bytes(seed_text: str, start: int, length: int) -> Iterator[bytes]:
    """`length` deterministic bytes from offset `start`, in blocks of 64 KiB."""
    block = bytearray()
    counter = 0
    while len(block) < STREAM_BLOCK_SIZE:
        block += hashlib.sha256(f"{seed_text}:{counter}".encode()).digest()
        counter += 1
    view = memoryview(bytes(block[:STREAM_BLOCK_SIZE]))
    position = start % STREAM_BLOCK_SIZE
    remaining = length
    while remaining > 0:
        piece = view[position : position + remaining]
        remaining -= len(piece)
        position = 0
        yield bytes(piece)


class StorageRouter(Router):
    """The shared router, with the real service's 405: body and `Allow` are `GET,POST`,
    and HEAD only where a route names it."""

    def resolve(self, request: Request) -> Response:
        for route in self.routes:
            match = route.pattern.fullmatch(request.path)
            if match is None:
                continue
            handler = route.methods.get(request.method)
            if handler is None:
                allow = ",".join(route.methods)
                return text_response(allow, 405, HTML, headers=[("Allow", allow)])
            request.params = {k: v for k, v in match.groupdict().items() if v is not None}
            return handler(request)
        return self.not_found(request)

    def matches_any(self, path: str) -> bool:
        return any(route.pattern.fullmatch(path) for route in self.routes)


UUID_SEGMENT = r"(?P<uuid>[^/]+)"


class StorageApi:
    """Routes and handlers of the fake storage service."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        # Stored dates are filtered in server time, as they are shown.
        storage = sim.storage
        if storage.server_time_is_utc:
            stored_date: Callable[[Package], Any] = _attr("stored_date")
        else:
            stored_date = lambda package: storage.server_time(package.stored_date)  # noqa: E731
        self.registry = _build_registry(stored_date)
        self.router = StorageRouter(
            not_found=lambda request: text_response(NOT_FOUND_PAGE, 404, HTML)
        )
        self._pipeline_rng_counter = 0
        self._add_routes()

    @property
    def storage(self) -> StorageState:
        state: StorageState = self.sim.storage
        return state

    # --- WSGI entry -----------------------------------------------------------------------

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        request = Request(environ)
        response = self.respond(request)
        response.headers.extend(COMMON_HEADERS)
        return response(environ, start_response)

    def respond(self, request: Request) -> Response:
        path = request.path
        if not path.endswith("/") and self.router.matches_any(path + "/"):
            return self._append_slash(request)
        self.sim.sync()
        with self.sim.lock:
            try:
                self._finish_due_async_tasks()
                self.storage.finish_due_moves()
                return self.router.resolve(request)
            except StorageError as error:
                return error_response(error)
            except ListQueryError as error:
                return json_response({"error": str(error)}, 400)
            except Exception:
                # What the real service does with any unhandled error: a canned 500.
                logger.exception("storage simulator failed on %s %s", request.method, path)
                return canned_500()

    def _append_slash(self, request: Request) -> Response:
        host = request.header("Host") or "{}:{}".format(
            request.environ.get("SERVER_NAME", "127.0.0.1"),
            request.environ.get("SERVER_PORT", "80"),
        )
        scheme = request.environ.get("wsgi.url_scheme", "http")
        location = f"{scheme}://{host}{request.path}/"
        if request.query_string:
            location += f"?{request.query_string}"
        return Response(301, b"", HTML, [("Location", location)])

    # --- Routing ---------------------------------------------------------------------------

    def _add_routes(self) -> None:
        add, auth = self.router.add, self._authenticated
        add(r"/api/v2/", {"GET": self.root})
        add(r"/_simulator/state/?", {"GET": self.simulator_state})
        add(
            r"/api/v2/(?P<resource>pipeline|space|location|file|async)/schema/",
            {"GET": auth(self.schema)},
        )
        add(
            r"/api/v2/pipeline/",
            {"GET": auth(self.pipeline_list), "POST": auth(self.pipeline_create)},
        )
        add(rf"/api/v2/pipeline/{UUID_SEGMENT}/", {"GET": auth(self.pipeline_detail)})
        add(r"/api/v2/space/", {"GET": auth(self.space_list), "POST": auth(self.space_create)})
        add(rf"/api/v2/space/{UUID_SEGMENT}/", {"GET": auth(self.space_detail)})
        add(rf"/api/v2/space/{UUID_SEGMENT}/browse/", {"GET": auth(self.space_browse)})
        add(
            r"/api/v2/location/",
            {"GET": auth(self.location_list), "POST": auth(self.location_create)},
        )
        add(r"/api/v2/location/default/(?P<purpose>[^/]+)/", {"GET": auth(self.location_default)})
        add(
            rf"/api/v2/location/{UUID_SEGMENT}/",
            {"GET": auth(self.location_detail), "POST": auth(self.location_move_files)},
        )
        add(rf"/api/v2/location/{UUID_SEGMENT}/browse/", {"GET": auth(self.location_browse)})
        add(
            rf"/api/v2/location/{UUID_SEGMENT}/sword/collection/",
            {"GET": auth(self.sword_stub), "POST": auth(self.sword_stub)},
        )
        add(r"/api/v2/file/", {"GET": auth(self.package_list), "POST": auth(self.package_create)})
        add(r"/api/v2/file/async/", {"POST": auth(self.package_create_async)})
        add(
            r"/api/v2/file/metadata/",
            {"GET": auth(self.file_metadata), "POST": auth(self.file_metadata)},
        )
        add(
            rf"/api/v2/file/{UUID_SEGMENT}/",
            {
                "GET": auth(self.package_detail),
                "PUT": auth(self.package_put),
                "PATCH": auth(self.package_patch),
            },
        )
        add(rf"/api/v2/file/{UUID_SEGMENT}/delete_aip/", {"POST": auth(self.delete_aip)})
        add(rf"/api/v2/file/{UUID_SEGMENT}/recover_aip/", {"POST": auth(self.recover_aip)})
        add(
            rf"/api/v2/file/{UUID_SEGMENT}/extract_file/",
            {"GET": auth(self.extract_file), "HEAD": auth(self.extract_file)},
        )
        add(
            rf"/api/v2/file/{UUID_SEGMENT}/download/",
            {"GET": auth(self.download), "HEAD": auth(self.download)},
        )
        add(
            rf"/api/v2/file/{UUID_SEGMENT}/download/(?P<chunk>\d+)/",
            {"GET": auth(self.download), "HEAD": auth(self.download)},
        )
        add(rf"/api/v2/file/{UUID_SEGMENT}/pointer_file/", {"GET": auth(self.pointer_file)})
        add(rf"/api/v2/file/{UUID_SEGMENT}/check_fixity/", {"GET": auth(self.check_fixity)})
        add(
            rf"/api/v2/file/{UUID_SEGMENT}/send_callback/post_store/",
            {"GET": auth(self.post_store_callback)},
        )
        add(
            rf"/api/v2/file/{UUID_SEGMENT}/contents/",
            {
                "GET": auth(self.contents),
                "PUT": auth(self.contents_put),
                "DELETE": auth(self.contents_delete),
            },
        )
        add(rf"/api/v2/file/{UUID_SEGMENT}/reingest/", {"POST": auth(self.reingest)})
        add(rf"/api/v2/file/{UUID_SEGMENT}/move/", {"POST": auth(self.move)})
        for tail in ("sword/", "sword/media/", "sword/state/"):
            add(
                rf"/api/v2/file/{UUID_SEGMENT}/{tail}",
                {
                    "GET": auth(self.sword_stub),
                    "POST": auth(self.sword_stub),
                    "PUT": auth(self.sword_stub),
                    "DELETE": auth(self.sword_stub),
                },
            )
        add(r"/api/v2/async/", {"GET": auth(self.async_list)})
        add(r"/api/v2/async/(?P<id>\d+)/", {"GET": auth(self.async_detail)})

    # --- Authentication ----------------------------------------------------------------------

    def _authenticated(
        self, handler: Callable[[Request], Response]
    ) -> Callable[[Request], Response]:
        def guarded(request: Request) -> Response:
            if not self._credentials_ok(request):
                return Response(
                    401, b"", HTML, [("WWW-Authenticate", 'Basic Realm="django-tastypie"')]
                )
            return handler(request)

        return guarded

    def _credentials_ok(self, request: Request) -> bool:
        user = getattr(self.sim.config, "user", "demo")
        key = getattr(self.sim.config, "key", "demo-key")
        header = request.header("Authorization").strip()
        scheme, _, credentials = header.partition(" ")
        # The header wins when it names the ApiKey scheme (in any case).
        if scheme.lower() == "apikey":
            given_user, colon, given_key = credentials.strip().partition(":")
            return bool(colon) and given_user == user and given_key == key
        return request.query_value("username") == user and request.query_value("api_key") == key

    # --- Helpers --------------------------------------------------------------------------

    def _query_pairs(self, request: Request) -> list[tuple[str, str]]:
        return parse_qsl(request.query_string, keep_blank_values=True)

    def _uuid_param(self, request: Request) -> str:
        value = request.params["uuid"]
        try:
            return str(uuid_module.UUID(value))
        except ValueError:
            raise StorageError(400, {"error": invalid_uuid_message(value)}) from None

    def _detail_package(self, request: Request) -> Package:
        package = self.storage.packages.get(self._uuid_param(request))
        if package is None:
            raise StorageError(404, None)
        return package

    def _custom_package(self, request: Request) -> Package:
        value = self._uuid_param(request)
        package = self.storage.packages.get(value)
        if package is None:
            raise no_such_resource(value)
        return package

    def _body(self, request: Request) -> dict[str, Any]:
        if request.media_type == "application/x-www-form-urlencoded":
            return {name: values[-1] for name, values in request.form.items()}
        if not request.body.strip():
            return {}
        try:
            data = request.json()
        except (ValueError, UnicodeDecodeError):
            raise StorageError(400, {"error": "Request is not valid JSON."}) from None
        if not isinstance(data, dict):
            raise StorageError(400, {"error": "Request is not valid JSON."})
        return data

    def _space_json(self, space: Space) -> dict[str, Any]:
        return space_json(space, legacy=self.storage.legacy_quirks)

    def _location_json(self, location: Location) -> dict[str, Any]:
        return location_json(location, legacy=self.storage.legacy_quirks)

    def _list(
        self,
        request: Request,
        resource_name: str,
        objects: Iterable[Any],
        total: int | None,
        to_json: Callable[[Any], dict[str, Any]],
        narrow: Callable[[list[Filter]], tuple[Iterable[Any], int | None, list[Filter]]]
        | None = None,
    ) -> Response:
        resource = self.registry[resource_name]
        pairs = self._query_pairs(request)
        query = parse_list_query(resource, self.registry, pairs)
        filters = query.filters
        if narrow is not None:
            objects, total, filters = narrow(filters)
        page, matched = select_page(
            objects, filters, offset=query.offset, limit=query.limit, total=total
        )
        meta = page_meta(
            resource.list_uri, pairs, limit=query.limit, offset=query.offset, total=matched
        )
        return json_response({"meta": meta, "objects": [to_json(obj) for obj in page]})

    def _resolve_uri(self, value: Any, kind: str) -> Any:
        """The object a resource URI (or bare UUID) names, or None."""
        if not isinstance(value, str):
            return None
        text = value.strip()
        default = re.fullmatch(r"/api/v2/location/default/([A-Z]{2})/?", text)
        if kind == "location" and default:
            return self.storage.default_locations.get(default.group(1))
        candidate = text.rstrip("/").rsplit("/", 1)[-1]
        try:
            key = str(uuid_module.UUID(candidate))
        except ValueError:
            return None
        tables: dict[str, dict[str, Any]] = {
            "pipeline": self.storage.pipelines,
            "space": self.storage.spaces,
            "location": self.storage.locations,
            "file": self.storage.packages,
        }
        return tables[kind].get(key)

    # --- Root, schemas, simulator state ------------------------------------------------------

    def root(self, request: Request) -> Response:
        return json_response(
            {
                name: {"list_endpoint": f"/api/v2/{name}/", "schema": f"/api/v2/{name}/schema/"}
                for name in ("async", "file", "location", "pipeline", "space")
            }
        )

    def simulator_state(self, request: Request) -> Response:
        return json_response({"now": self.sim.clock.now().isoformat(), **self.storage.summary()})

    def schema(self, request: Request) -> Response:
        return json_response(self.registry[request.params["resource"]].schema())

    # --- Pipelines ---------------------------------------------------------------------------

    def pipeline_list(self, request: Request) -> Response:
        pipelines = self.storage.active_pipelines()
        return self._list(request, "pipeline", pipelines, len(pipelines), pipeline_json)

    def pipeline_detail(self, request: Request) -> Response:
        pipeline = self.storage.pipelines.get(self._uuid_param(request))
        if pipeline is None or not pipeline.enabled:
            raise StorageError(404, None)
        return json_response(pipeline_json(pipeline))

    def pipeline_create(self, request: Request) -> Response:
        data = self._body(request)
        storage = self.storage
        raw_uuid = data.get("uuid")
        if raw_uuid in (None, ""):
            self._pipeline_rng_counter += 1
            pipeline_uuid = st.new_uuid(
                storage.rng(f"created-pipeline-{self._pipeline_rng_counter}")
            )
        else:
            try:
                pipeline_uuid = str(uuid_module.UUID(str(raw_uuid)))
            except ValueError:
                raise StorageError(400, {"error": invalid_uuid_message(str(raw_uuid))}) from None
        if pipeline_uuid in storage.pipelines:
            # A unique-constraint failure in the real service.
            raise StorageError(500, CANNED_500)
        remote_name = data.get("remote_name") or request.environ.get("REMOTE_ADDR", "127.0.0.1")
        pipeline = storage.add_pipeline(
            Pipeline(
                pipeline_uuid,
                str(data.get("description") or ""),
                str(remote_name),
                str(data.get("api_username") or ""),
                str(data.get("api_key") or ""),
            )
        )
        create_defaults = bool(data.get("create_default_locations"))
        if create_defaults:
            self._link_default_locations(pipeline, data.get("shared_path"))
        body = pipeline_json(pipeline)
        body["create_default_locations"] = create_defaults
        if "shared_path" in data:
            body["shared_path"] = data["shared_path"]
        return json_response(body, 201, [("Location", pipeline_uri(pipeline))])

    def _link_default_locations(self, pipeline: Pipeline, shared_path: Any) -> None:
        storage = self.storage
        for purpose in (
            st.TRANSFER_SOURCE,
            st.AIP_STORAGE,
            st.DIP_STORAGE,
            st.BACKLOG,
            st.AIP_RECOVERY,
        ):
            location = storage.default_locations.get(purpose)
            if location is not None and pipeline not in location.pipelines:
                location.pipelines.append(pipeline)
        if isinstance(shared_path, str) and shared_path:
            root_space = next(
                (
                    space
                    for space in storage.spaces.values()
                    if space.access_protocol == st.LOCAL_FILESYSTEM and space.path == "/"
                ),
                None,
            )
            if root_space is not None:
                rng = storage.rng(f"created-location-{len(storage.locations)}")
                storage.add_location(
                    Location(
                        st.new_uuid(rng),
                        root_space,
                        st.CURRENTLY_PROCESSING,
                        shared_path.strip("/") + "/",
                        None,
                        [pipeline],
                    )
                )

    # --- Spaces --------------------------------------------------------------------------------

    def space_list(self, request: Request) -> Response:
        spaces = list(self.storage.spaces.values())
        return self._list(request, "space", spaces, len(spaces), self._space_json)

    def _space(self, request: Request, *, custom: bool) -> Space:
        value = self._uuid_param(request)
        space = self.storage.spaces.get(value)
        if space is None:
            raise no_such_resource(value) if custom else StorageError(404, None)
        return space

    def space_detail(self, request: Request) -> Response:
        return json_response(self._space_json(self._space(request, custom=False)))

    def space_create(self, request: Request) -> Response:
        data = self._body(request)
        errors: dict[str, list[str]] = {}
        protocol = str(data.get("access_protocol") or "")
        if not protocol:
            errors["access_protocol"] = ["This field is required."]
        elif protocol not in st.PROTOCOL_FIELDS:
            errors["access_protocol"] = [
                f"Select a valid choice. {protocol} is not one of the available choices."
            ]
        if not data.get("path"):
            errors["__all__"] = ["Path is required"]
        if not data.get("staging_path"):
            errors["staging_path"] = ["This field is required."]
        size: int | None = None
        raw_size = data.get("size")
        if raw_size is not None and raw_size != "":
            try:
                size = int(raw_size) or None
            except (TypeError, ValueError):
                errors["size"] = ["Enter a whole number."]
        if errors:
            return json_response({"space": errors}, 400)
        storage = self.storage
        rng = storage.rng(f"created-space-{len(storage.spaces)}")
        fields = {name: data[name] for name in st.PROTOCOL_FIELDS[protocol] if name in data}
        space = storage.add_space(
            Space(
                st.new_uuid(rng),
                0,
                protocol,
                str(data["path"]),
                str(data["staging_path"]),
                size,
                fields,
            )
        )
        return json_response(self._space_json(space), 201, [("Location", space_uri(space))])

    def space_browse(self, request: Request) -> Response:
        space = self._space(request, custom=True)
        path = request.query_value("path", "") or ""
        try:
            entries = self.storage.browse_space(space, path) or []
        except NotADirectoryError:
            return canned_500()
        return json_response(browse_body(entries, base64_keys=False))

    # --- Locations -------------------------------------------------------------------------------

    def location_list(self, request: Request) -> Response:
        locations = self.storage.active_locations()
        return self._list(request, "location", locations, len(locations), self._location_json)

    def _location(self, request: Request, *, custom: bool) -> Location:
        value = self._uuid_param(request)
        location = self.storage.locations.get(value)
        if location is None or not location.enabled:
            raise no_such_resource(value) if custom else StorageError(404, None)
        return location

    def location_detail(self, request: Request) -> Response:
        return json_response(self._location_json(self._location(request, custom=False)))

    def location_default(self, request: Request) -> Response:
        location = self.storage.default_locations.get(request.params["purpose"])
        if location is None or not location.enabled:
            return text_response("Default location not defined for this purpose.", 404, HTML)
        return Response(302, b"", HTML, [("Location", location_uri(location))])

    def location_create(self, request: Request) -> Response:
        data = self._body(request)
        storage = self.storage
        space_value = data.get("space")
        if space_value in (None, ""):
            raise missing_value("space", default_allowed=False)
        space = self._resolve_uri(space_value, "space")
        if space is None:
            raise unknown_uri("space", space_value)
        quota: int | None = None
        if data.get("quota") not in (None, ""):
            try:
                quota = int(data["quota"])
            except (TypeError, ValueError):
                raise StorageError(400, {"error": "Invalid quota."}) from None
        rng = storage.rng(f"created-location-{len(storage.locations)}")
        location = storage.add_location(
            Location(
                st.new_uuid(rng),
                space,
                str(data.get("purpose") or ""),
                str(data.get("relative_path") or ""),
                data.get("description"),
                [],
                quota,
            )
        )
        if location.purpose == st.TRANSFER_SOURCE:
            storage.source_trees[location.uuid] = st.SourceDir()
        # The real service saves the row before it checks the pipelines, so a
        # failure below leaves the location behind.
        pipeline_values = data.get("pipeline")
        if pipeline_values is None:
            raise missing_value("pipeline", default_allowed=False)
        for value in pipeline_values if isinstance(pipeline_values, list) else [pipeline_values]:
            pipeline = self._resolve_uri(value, "pipeline")
            if pipeline is None:
                raise unknown_uri("pipeline", value)
            if pipeline not in location.pipelines:
                location.pipelines.append(pipeline)
        is_default = bool(data.get("default"))
        if is_default and location.purpose:
            storage.default_locations[location.purpose] = location
        body = self._location_json(location)
        body["default"] = is_default
        return json_response(body, 201, [("Location", location_uri(location))])

    def location_browse(self, request: Request) -> Response:
        location = self._location(request, custom=True)
        raw = request.query_value("path", "") or ""
        try:
            decoded = base64.b64decode(raw)
        except (binascii.Error, ValueError):
            # The real service lets the decoding error escape.
            return canned_500()
        base = location.path.encode("utf-8").rstrip(b"/") + b"/"
        if decoded.startswith(b"/"):
            if not (decoded.rstrip(b"/") + b"/").startswith(base):
                return text_response(
                    "The path parameter must be relative to the location path", 400, HTML
                )
            decoded = decoded[len(base) :]
        parts: list[bytes] = []
        for part in decoded.split(b"/"):
            if part in (b"", b"."):
                continue
            if part == b"..":
                if not parts:
                    return text_response(
                        "The path parameter must be relative to the location path", 400, HTML
                    )
                parts.pop()
                continue
            parts.append(part)
        try:
            entries = self.storage.browse_location(location, parts) or []
        except NotADirectoryError:
            # A path naming a file, not a directory: the real service fails.
            return canned_500()
        return json_response(browse_body(entries, base64_keys=True))

    def location_move_files(self, request: Request) -> Response:
        destination = self._location(request, custom=False)
        data = self._body(request)
        missing = [name for name in ("origin_location", "pipeline", "files") if name not in data]
        if missing:
            raise StorageError(
                400, {"error": True, "message": f"Missing fields: {', '.join(missing)}"}
            )
        origin = self._resolve_uri(data["origin_location"], "location")
        pipeline = self._resolve_uri(data["pipeline"], "pipeline")
        if origin is None or pipeline is None:
            raise StorageError(
                400, {"error": True, "message": "Unknown origin location or pipeline"}
            )
        if pipeline not in origin.pipelines or pipeline not in destination.pipelines:
            raise StorageError(
                400,
                {
                    "error": True,
                    "message": "Both locations must be associated with the pipeline",
                },
            )
        files = data["files"]
        if not isinstance(files, list) or not all(
            isinstance(item, dict) and "source" in item and "destination" in item for item in files
        ):
            raise StorageError(
                400, {"error": True, "message": "Each file needs a source and a destination"}
            )
        tree = self.storage.source_trees.get(origin.uuid)
        if tree is not None:
            for item in files:
                parts = [
                    p
                    for p in str(item["source"]).encode("utf-8", "surrogateescape").split(b"/")
                    if p
                ]
                if tree.find(parts) is None:
                    raise StorageError(
                        400, {"error": True, "message": f"{item['source']} does not exist"}
                    )
        return json_response({"error": None, "message": "Files moved successfully"})

    # --- Packages: list, detail, create, update ----------------------------------------------

    def package_list(self, request: Request) -> Response:
        storage = self.storage
        return self._list(
            request,
            "file",
            storage.packages.values(),
            len(storage.packages),
            lambda package: package_json(storage, package),
            narrow=self._narrow_packages,
        )

    def _narrow_packages(
        self, filters: list[Filter]
    ) -> tuple[Iterable[Package], int | None, list[Filter]]:
        """Answer exact / `__in` filters on type, status and location from the state's
        indexes; returns the candidates, the total when known, and the filters left."""
        wanted: dict[str, set[str]] = {}
        left: list[Filter] = []
        storage = self.storage
        for check in filters:
            names = check.names
            if check.lookup not in {"exact", "in"} or check.value is None:
                left.append(check)
                continue
            values = set(check.value) if check.lookup == "in" else {check.value}
            if names in {("package_type",), ("status",)}:
                key = names[0]
            elif names in {("current_location",), ("current_location", "uuid")}:
                key = "location"
            elif names == ("current_location", "purpose"):
                key = "location"
                values = {loc.uuid for loc in storage.locations.values() if loc.purpose in values}
            else:
                left.append(check)
                continue
            wanted[key] = wanted[key] & values if key in wanted else values
        candidates, total = storage.package_candidates(
            package_types=wanted.get("package_type"),
            statuses=wanted.get("status"),
            location_uuids=wanted.get("location"),
        )
        return candidates, total, left

    def package_detail(self, request: Request) -> Response:
        return json_response(package_json(self.storage, self._detail_package(request)))

    def package_create(self, request: Request) -> Response:
        data = self._body(request)
        package = self.register_package(data)
        body = package_json(self.storage, package)
        body.update(
            {
                "origin_location": data.get("origin_location"),
                "origin_path": data.get("origin_path"),
                "related_package_uuid": data.get("related_package_uuid"),
                "aip_subtype": data.get("aip_subtype", "Archival Information Package"),
                "events": [],
                "agents": [],
            }
        )
        return json_response(body, 201, [("Location", package_uri(package))])

    def register_package(self, data: dict[str, Any]) -> Package:
        """Record (and, in the real service, move) a package from a registration body."""
        storage = self.storage
        for name in (
            "current_location",
            "current_path",
            "origin_location",
            "origin_path",
            "origin_pipeline",
            "package_type",
            "size",
            "uuid",
        ):
            if data.get(name) in (None, ""):
                raise missing_value(name)
        try:
            package_uuid = str(uuid_module.UUID(str(data["uuid"])))
        except ValueError:
            raise StorageError(400, {"error": invalid_uuid_message(str(data["uuid"]))}) from None
        if package_uuid in storage.packages:
            raise StorageError(500, CANNED_500)
        location = self._resolve_uri(data["current_location"], "location")
        origin_location = self._resolve_uri(data["origin_location"], "location")
        pipeline = self._resolve_uri(data["origin_pipeline"], "pipeline")
        for value, found, kind in (
            (data["current_location"], location, "location"),
            (data["origin_location"], origin_location, "location"),
            (data["origin_pipeline"], pipeline, "pipeline"),
        ):
            if found is None:
                raise unknown_uri(kind, value)
        package_type = str(data["package_type"])
        if package_type not in st.PACKAGE_TYPES:
            raise StorageError(400, {"error": f"'{package_type}' is not a valid package type."})
        try:
            size = int(data["size"])
        except (TypeError, ValueError):
            raise StorageError(
                400, {"error": "Invalid resource lookup data provided (mismatched type)."}
            ) from None
        current_path = str(data["current_path"])
        now = storage.now()
        package = Package(
            package_uuid,
            _name_from_path(current_path, package_uuid),
            package_type,
            st.UPLOADED,
            location,
            current_path,
            pipeline,
            size,
            None if package_type == st.TRANSFER else now,
            compressed=_looks_compressed(current_path),
            origin_location=origin_location,
            origin_path=str(data["origin_path"]),
        )
        related_uuid = data.get("related_package_uuid")
        related = storage.packages.get(str(related_uuid)) if related_uuid else None
        if related is not None:
            package.related.append(related)
            related.related.append(package)
        storage.add_package(package)
        return package

    def package_create_async(self, request: Request) -> Response:
        data = self._body(request)
        task = self.storage.add_async_task(data)
        return Response(202, b"", HTML, [("Location", f"/api/v2/async/{task.id}/")])

    def _finish_due_async_tasks(self) -> None:
        storage = self.storage
        now = storage.now()
        for task in storage.async_tasks.values():
            if task.completed or task.due_at > now:
                continue
            try:
                package = self.register_package(task.payload)
                task.result = package_json(storage, package)
            except StorageError as error:
                task.was_error = True
                task.error = error.payload
            task.completed = True
            task.completed_at = task.updated_at = task.due_at

    def package_put(self, request: Request) -> Response:
        package = self._detail_package(request)
        data = self._body(request)
        storage = self.storage
        if data.get("reingest"):
            if (
                package.package_type not in st.BAG_TYPES
                or package.location.purpose != st.AIP_STORAGE
            ):
                raise StorageError(
                    400, {"error": "Only an AIP or AIC in AIP storage can be reingested."}
                )
            reingest_pipeline = package.misc_attributes.get("reingest_pipeline")
            origin = self._resolve_uri(data.get("origin_pipeline"), "pipeline")
            if not reingest_pipeline or origin is None or origin.uuid != reingest_pipeline:
                raise StorageError(
                    400,
                    {"error": "The origin pipeline must be the pipeline the reingest started on."},
                )
            if data.get("size") not in (None, ""):
                storage.set_size(package, _int_or_400(data["size"]))
            package.stored_date = storage.now()
            package.misc_attributes["reingest_pipeline"] = None
            storage.set_status(package, st.UPLOADED)
        else:
            self._update_package(package, data)
        return json_response(package_json(storage, package))

    def package_patch(self, request: Request) -> Response:
        package = self._detail_package(request)
        self._update_package(package, self._body(request))
        package.misc_attributes["reingest"] = None
        return json_response(package_json(self.storage, package), 202)

    def _update_package(self, package: Package, data: dict[str, Any]) -> None:
        storage = self.storage
        if "status" in data:
            if data["status"] not in st.STATUSES:
                raise StorageError(400, {"error": f"'{data['status']}' is not a valid status."})
            storage.set_status(package, data["status"])
        if data.get("size") not in (None, ""):
            storage.set_size(package, _int_or_400(data["size"]))
        if isinstance(data.get("misc_attributes"), dict):
            package.misc_attributes.update(data["misc_attributes"])
        if "encrypted" in data:
            package.encrypted = bool(data["encrypted"])

    # --- Packages: requests, fixity, reingest, move ----------------------------------------------

    def delete_aip(self, request: Request) -> Response:
        return self._package_request(request, st.DELETE_REQUEST)

    def recover_aip(self, request: Request) -> Response:
        return self._package_request(request, st.RECOVER_REQUEST)

    def _package_request(self, request: Request, kind: str) -> Response:
        package = self._custom_package(request)
        data = self._body(request)
        if package.package_type not in REQUEST_TYPES[kind]:
            return json_response({"message": REFUSED_TYPE_MESSAGE[kind]}, 405)
        required = ("event_reason", "pipeline", "user_id", "user_email")
        if any(name not in data for name in required):
            return json_response(
                {
                    "success": False,
                    "error": f"All of these fields must be provided: {', '.join(required)}",
                },
                400,
            )
        user_id = data["user_id"]
        if isinstance(user_id, str) and user_id.strip().isdigit():
            user_id = int(user_id)
        if isinstance(user_id, bool) or not isinstance(user_id, int) or user_id < 1:
            return json_response(
                {
                    "success": False,
                    "error": "Invalid user_id: it must be an integer greater than 0.",
                },
                400,
            )
        pipeline = self._pipeline_by_bare_uuid(data["pipeline"])
        if pipeline is None:
            return json_response(
                {"success": False, "error": f"Pipeline {data['pipeline']} does not exist."}, 400
            )
        filed = self.storage.request_package_event(
            package,
            kind,
            pipeline_uuid=pipeline.uuid,
            reason=str(data["event_reason"]),
            user_id=user_id,
            user_email=str(data["user_email"]),
        )
        if filed is None:
            word = DUPLICATE_REQUEST_WORD[kind]
            return json_response(
                {DUPLICATE_REQUEST_KEY[kind]: f"A {word} request already exists for this AIP."},
                200,
            )
        return json_response(
            {
                "message": f"{APPROVAL_ID_WORD[kind]} request created successfully.",
                "id": filed.id,
            },
            202,
        )

    def _pipeline_by_bare_uuid(self, value: Any) -> Pipeline | None:
        """The pipeline a request names; it is looked up as `uuid=<value>`, so anything
        but a bare UUID (a resource URI, say) is refused with 400 in Django's words."""
        text = str(value)
        try:
            key = str(uuid_module.UUID(text))
        except ValueError:
            raise StorageError(400, {"error": invalid_uuid_message(text)}) from None
        pipeline: Pipeline | None = self.storage.pipelines.get(key)
        return pipeline

    def check_fixity(self, request: Request) -> Response:
        package = self._custom_package(request)
        if package.status == st.DELETED:
            # The files are gone and the scan fails unhandled.
            return canned_500()
        force_local = (request.query_value("force_local", "") or "").lower() in {
            "true",
            "1",
            "yes",
            "on",
        }
        return json_response(self.storage.check_fixity(package, force_local=force_local))

    def reingest(self, request: Request) -> Response:
        package = self._custom_package(request)
        data = self._body(request)
        storage = self.storage
        pipeline_value = data.get("pipeline")
        pipeline = self._resolve_uri(pipeline_value, "pipeline")
        if pipeline is None:
            return _receipt(400, f"Pipeline UUID {pipeline_value} failed to return a pipeline")
        if package.package_type not in st.BAG_TYPES:
            return _receipt(405, "Package must be an AIP or AIC")
        if package.status != st.UPLOADED:
            return _receipt(405, f"Package must be in status {st.UPLOADED} to be reingested")
        if "reingest_type" not in data:
            # A missing key fails unhandled in the real service.
            return canned_500()
        reingest_type = str(data["reingest_type"])
        pipeline_text = f"{pipeline.description} ({pipeline.uuid})"
        if storage.is_reingesting(package):
            return _receipt(409, f"This AIP is already being reingested on {pipeline_text}")
        service = self.sim.service_for(pipeline.uuid)
        if service is None:
            # Only the simulated pipelines answer; the others are records only.
            return _receipt(502, f"Error sending reingest request to pipeline {pipeline_text}")
        sent = st.reingest_sends(reingest_type)
        try:
            reingest_uuid = service.workflow.start_reingest(
                aip_uuid=package.uuid,
                name=package.name,
                reingest_type=sent.upper(),
                processing_config=data.get("processing_config"),
            )
        except ValueError:
            return _receipt(409, f"This AIP is already being reingested on {pipeline_text}")
        storage.start_reingest(package, pipeline, reingest_type)
        return json_response(
            {
                "error": False,
                "message": f"Package {package.uuid} sent to pipeline {pipeline_text} for re-ingest",
                "reingest_uuid": reingest_uuid,
                "status_code": 202,
            },
            202,
        )

    def move(self, request: Request) -> Response:
        package = self._custom_package(request)
        data = self._body(request)
        value = data.get("location_uuid")
        if not value:
            return text_response("All of these fields must be provided: location_uuid", 400, HTML)
        destination = self._resolve_uri(value, "location")
        if destination is None or not destination.enabled:
            raise no_such_resource(str(value))
        if destination.purpose != package.location.purpose:
            return text_response(
                "New location must have the same purpose as the current location - "
                f"{package.location.purpose}",
                400,
                HTML,
            )
        if package.status != st.UPLOADED:
            return text_response("The package must be in an uploaded state to be moved.", 400, HTML)
        # The move runs in the background: MOVING now, UPLOADED in its new place soon.
        self.storage.start_move(package, destination)
        return Response(202, b"", HTML)

    def post_store_callback(self, request: Request) -> Response:
        package = self._custom_package(request)
        if not package.locally_available:
            return json_response(
                {"error": True, "message": "The package must be stored locally."}, 400
            )
        # No post-store callbacks are configured in the simulator.
        return Response(204, b"", None)

    # --- Packages: files -----------------------------------------------------------------------

    def _stored_file_check(self, package: Package) -> Response | None:
        if package.status == st.DELETED:
            # Reading the missing file fails unhandled in the real service.
            return canned_500()
        if package.status in {st.PENDING, st.FAIL}:
            return text_response(f"Package {package.uuid} has no stored file.", 404, HTML)
        if not package.locally_available:
            return json_response({"error": False, "message": NOT_LOCALLY_AVAILABLE}, 202)
        return None

    def download(self, request: Request) -> Response:
        package = self._custom_package(request)
        refusal = self._stored_file_check(package)
        if refusal is not None:
            return refusal
        if package.compressed:
            file_name, content_type = package.basename, "application/x-7z-compressed"
        else:
            file_name, content_type = f"{package.basename}.tar", "application/x-tar"
        start, length = 0, package.size
        chunk = request.params.get("chunk")
        if chunk is not None:
            number = int(chunk)
            start = (number - 1) * DOWNLOAD_CHUNK_SIZE
            if number < 1 or start >= max(package.size, 1):
                return text_response(f"Chunk {number} does not exist", 404, HTML)
            length = min(DOWNLOAD_CHUNK_SIZE, package.size - start)
            file_name = f"{file_name}.{number}"
        seed_text = package.uuid
        return StreamingResponse(
            200,
            b"",
            content_type,
            [("Content-Disposition", f'attachment; filename="{file_name}"')],
            chunks=lambda: package_bytes(seed_text, start, length),
            length=length,
        )

    def extract_file(self, request: Request) -> Response:
        package = self._custom_package(request)
        relative = request.query_value("relative_path_to_file")
        if not relative:
            return text_response(
                "All of these fields must be provided: relative_path_to_file", 400, HTML
            )
        refusal = self._stored_file_check(package)
        if refusal is not None:
            return refusal
        top = _strip_package_extension(package.basename)
        if relative.strip("/").split("/", 1)[0] != top:
            return text_response(
                f"Requested file {relative} not found in package {package.uuid}", 404, HTML
            )
        file_name = relative.rstrip("/").rsplit("/", 1)[-1]
        disposition = [("Content-Disposition", f'attachment; filename="{file_name}"')]
        if file_name.lower().endswith(".xml"):
            return Response(
                200, mets_document(package).encode("utf-8"), "application/xml", disposition
            )
        content_type = mimetypes.guess_type(file_name)[0] or "application/octet-stream"
        digest = hashlib.sha256(f"{package.uuid}:{relative}".encode()).digest()
        length = 1_000 + int.from_bytes(digest[:4], "big") % 5_000_000
        seed_text = f"{package.uuid}:{relative}"
        return StreamingResponse(
            200,
            b"",
            content_type,
            disposition,
            chunks=lambda: package_bytes(seed_text, 0, length),
            length=length,
        )

    def pointer_file(self, request: Request) -> Response:
        package = self._custom_package(request)
        if package.package_type not in st.BAG_TYPES or not package.compressed:
            return text_response(
                f"Resource with UUID {package.uuid} does not have a pointer file", 404, HTML
            )
        if package.status == st.DELETED:
            return text_response("File not found", 404, HTML)
        return Response(
            200, pointer_document(self.storage, package).encode("utf-8"), "application/xml"
        )

    def contents(self, request: Request) -> Response:
        package = self._custom_package(request)
        return json_response(
            {
                "success": True,
                "package": package.uuid,
                "files": self.storage.package_files(package),
            }
        )

    def contents_put(self, request: Request) -> Response:
        package = self._custom_package(request)
        try:
            records = json.loads(request.body.decode("utf-8") or "[]")
        except (ValueError, UnicodeDecodeError):
            raise StorageError(400, {"error": "Request is not valid JSON."}) from None
        if not isinstance(records, list) or not all(isinstance(item, dict) for item in records):
            raise StorageError(400, {"error": "Expected a list of file records."})
        files = self.storage.package_files(package)
        written = []
        for item in records:
            record = {
                "relative_path": str(item.get("relative_path", "")),
                "fileuuid": str(item.get("fileuuid", "")),
                "accessionid": str(item.get("accessionid", "")),
                "sipuuid": str(item.get("sipuuid", "")),
                "origin": str(item.get("origin", "")),
            }
            files.append(
                {
                    "source_id": record["fileuuid"],
                    "name": record["relative_path"],
                    "source_package": record["sipuuid"],
                    "checksum": str(item.get("checksum", "")),
                    "accessionid": record["accessionid"],
                    "origin": record["origin"],
                }
            )
            written.append(record)
        return json_response(written, 201)

    def contents_delete(self, request: Request) -> Response:
        package = self._custom_package(request)
        package.files = []
        return Response(204, b"", None)

    def file_metadata(self, request: Request) -> Response:
        source = dict(self._query_pairs(request))
        if request.method == "POST":
            source.update({key: str(value) for key, value in self._body(request).items()})
        names = {
            "relative_path": "name",
            "fileuuid": "source_id",
            "accessionid": "accessionid",
            "sipuuid": "source_package",
            "origin": "origin",
        }
        criteria = {names[key]: value for key, value in source.items() if key in names}
        if not criteria:
            return json_response({"success": False, "error": "No metadata was specified."}, 400)
        found = self.storage.find_files(criteria)
        if not found:
            return Response(404, b"", HTML)
        results = []
        for _package, record in found:
            file_name = record["name"].rsplit("/", 1)[-1]
            extension = file_name.rsplit(".", 1)[-1] if "." in file_name else ""
            results.append(
                {
                    "accessionid": record["accessionid"],
                    "file_extension": extension,
                    "filename": file_name,
                    "relative_path": record["name"],
                    "fileuuid": record["source_id"],
                    "sipuuid": record["source_package"],
                    "origin": record["origin"],
                }
            )
        return json_response(results)

    def sword_stub(self, request: Request) -> Response:
        return text_response("SWORD deposits are not simulated.", 501, HTML)

    # --- Async -------------------------------------------------------------------------------

    def async_list(self, request: Request) -> Response:
        tasks = list(self.storage.async_tasks.values())
        storage = self.storage
        return self._list(
            request, "async", tasks, len(tasks), lambda task: async_json(storage, task)
        )

    def async_detail(self, request: Request) -> Response:
        task = self.storage.async_tasks.get(int(request.params["id"]))
        if task is None:
            return Response(404, b"", HTML)
        return json_response(async_json(self.storage, task))


# --- Small pure helpers --------------------------------------------------------------------------


def browse_body(entries: list[st.BrowseEntry], *, base64_keys: bool) -> dict[str, Any]:
    """Browse JSON: names always base64; property keys base64 only on location browse."""
    encoded_entries = []
    directories = []
    properties: dict[str, Any] = {}
    for entry in sorted(entries, key=lambda item: item.name):
        encoded = base64.b64encode(entry.name).decode("ascii")
        encoded_entries.append(encoded)
        key = encoded if base64_keys else entry.name.decode("utf-8", "surrogateescape")
        if entry.is_dir:
            directories.append(encoded)
            properties[key] = {"object count": entry.object_count}
        else:
            properties[key] = {"size": entry.size}
    return {"directories": directories, "entries": encoded_entries, "properties": properties}


def _receipt(status: int, message: str) -> Response:
    return json_response({"error": True, "message": message, "status_code": status}, status)


def _int_or_400(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise StorageError(
            400, {"error": "Invalid resource lookup data provided (mismatched type)."}
        ) from None


def _looks_compressed(path: str) -> bool:
    return path.rstrip("/").lower().endswith((".7z", ".tar.gz", ".tar.bz2", ".zip", ".tar"))


def _strip_package_extension(name: str) -> str:
    for extension in (".7z", ".tar.gz", ".tar.bz2", ".zip", ".tar"):
        if name.endswith(extension):
            return name[: -len(extension)]
    return name


def _name_from_path(current_path: str, package_uuid: str) -> str:
    base = _strip_package_extension(current_path.rstrip("/").rsplit("/", 1)[-1])
    suffix = f"-{package_uuid}"
    return base[: -len(suffix)] if base.endswith(suffix) else base


def mets_document(package: Package) -> str:
    created = package.stored_date.isoformat() if package.stored_date else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<mets:mets xmlns:mets="http://www.loc.gov/METS/" '
        f'OBJID="{package.uuid}">\n'
        f'  <mets:metsHdr CREATEDATE="{created}"/>\n'
        '  <mets:fileSec><mets:fileGrp USE="original"/></mets:fileSec>\n'
        '  <mets:structMap TYPE="physical">\n'
        f'    <mets:div TYPE="Directory" LABEL="{package.name}-{package.uuid}"/>\n'
        "  </mets:structMap>\n"
        "</mets:mets>\n"
    )


def pointer_document(storage: StorageState, package: Package) -> str:
    checksum = hashlib.sha256(f"{package.uuid}:pointer".encode()).hexdigest()
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<mets:mets xmlns:mets="http://www.loc.gov/METS/" '
        'xmlns:premis="http://www.loc.gov/premis/v3">\n'
        '  <mets:amdSec><mets:techMD><mets:mdWrap MDTYPE="PREMIS:OBJECT"><mets:xmlData>\n'
        "    <premis:object>\n"
        f"      <premis:objectIdentifier><premis:objectIdentifierValue>{package.uuid}"
        "</premis:objectIdentifierValue></premis:objectIdentifier>\n"
        "      <premis:fixity><premis:messageDigestAlgorithm>sha256</premis:messageDigestAlgorithm>"
        f"<premis:messageDigest>{checksum}</premis:messageDigest></premis:fixity>\n"
        f"      <premis:size>{package.size}</premis:size>\n"
        "      <premis:format><premis:formatName>7Z</premis:formatName></premis:format>\n"
        "    </premis:object>\n"
        "  </mets:xmlData></mets:mdWrap></mets:techMD></mets:amdSec>\n"
        '  <mets:fileSec><mets:fileGrp USE="Archival Information Package">\n'
        f'    <mets:file ID="{package.basename}">'
        '<mets:FLocat LOCTYPE="OTHER" OTHERLOCTYPE="SYSTEM" '
        f'xlink:href="{package.current_full_path}" xmlns:xlink="http://www.w3.org/1999/xlink"/>'
        "</mets:file>\n"
        "  </mets:fileGrp></mets:fileSec>\n"
        "</mets:mets>\n"
    )


def make_storage_app(sim: Any) -> StorageApi:
    """The storage service's WSGI app over `sim` (its `storage`, `workflow`, `clock`, `lock`)."""
    return StorageApi(sim)
