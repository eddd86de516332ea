"""The workflow service's HTTP API, with the real service's wire quirks.

Every endpoint of the workflow spec; the test-control endpoints under
`/_simulator/` live in `control_api.py`. Where the spec says "not shown",
the behaviour follows what the real service does (403 JSON for a bad key,
405 before auth, 301 for a missing slash on some routes, 500s for
"expected" errors, ...).
"""

from __future__ import annotations

import base64
import binascii
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from simulator import workflow_data as data
from simulator.control_api import add_control_routes
from simulator.csv_validators import VALIDATORS
from simulator.dashboard_api import add_dashboard_routes
from simulator.ids import random_uuid
from simulator.processing_config import BUILTIN_NAMES, builtin_config
from simulator.unit_jobs import find_task, job_records
from simulator.units import FINISHED, SHARED_DIRECTORY, SIP, TRANSFER, NoJobsYet
from simulator.workflow import UnknownUnit, WorkflowState
from simulator.wsgi import (
    Request,
    Response,
    Router,
    WsgiApp,
    empty_response,
    json_response,
    text_response,
)

UUID = r"[\w]{8}(?:-[\w]{4}){3}-[\w]{12}"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
ALL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
NOT_FOUND_PAGE = (
    '<!doctype html>\n<html lang="en">\n<head><title>Not Found</title></head>\n'
    "<body><h1>Not Found</h1><p>The requested resource was not found on this server.</p>"
    "</body>\n</html>\n"
)
SERVER_ERROR_PAGE = (
    '<!doctype html>\n<html lang="en">\n<head><title>Server Error (500)</title></head>\n'
    "<body><h1>Server Error (500)</h1><p></p></body>\n</html>\n"
)
COMPLETED_MESSAGE = "Fetched completed transfers successfully."

Handler = Callable[[Request, datetime], Response]


def workflow_error_body() -> tuple[str, bytes]:
    """The real service's unhandled-error page: Django's plain HTML 500."""
    return "text/html; charset=utf-8", SERVER_ERROR_PAGE.encode("utf-8")


def not_found(request: Request) -> Response:
    return text_response(NOT_FOUND_PAGE, 404, "text/html; charset=utf-8")


def server_error() -> Response:
    return text_response(SERVER_ERROR_PAGE, 500, "text/html; charset=utf-8")


def error(message: str, status: int, **extra: Any) -> Response:
    return json_response({"error": True, "message": message, **extra}, status)


class InputError(Exception):
    """A request the real service would answer with its HTML 500 page."""


def decode_base64(text: str) -> str:
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
        # Source trees may hold names that are not UTF-8; keep their bytes.
        return raw.decode("utf-8", "surrogateescape")
    except (binascii.Error, UnicodeError, ValueError) as exc:
        raise InputError(text) from exc


def split_location_path(decoded: str) -> tuple[str | None, str]:
    """`<location uuid>:<path>` or a bare absolute path (the default transfer source)."""
    if decoded.startswith("/"):
        return None, decoded
    location, _, path = decoded.partition(":")
    return location, path


class WorkflowApi:
    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.configs: dict[str, str] = {name: builtin_config(name) for name in BUILTIN_NAMES}
        self.router = Router(not_found)
        self._add_routes()

    @property
    def state(self) -> WorkflowState:
        return self.sim.workflow

    # -- plumbing ---------------------------------------------------------

    def _authenticated(self, request: Request) -> bool:
        scheme, _, credentials = request.header("Authorization").partition(" ")
        if scheme.lower() == "apikey":
            user, _, key = credentials.strip().partition(":")
        else:
            user = request.query_value("username") or request.form_value("username") or ""
            key = request.query_value("api_key") or request.form_value("api_key") or ""
        config = self.sim.config
        return user == config.user and key == config.key

    def _endpoint(self, handler: Handler) -> Callable[[Request], Response]:
        def run(request: Request) -> Response:
            if not self._authenticated(request):
                return json_response({"message": "API key not valid.", "error": True}, 403)
            now = self.sim.sync()
            with self.sim.lock:
                try:
                    return handler(request, now)
                except InputError:
                    return server_error()

        return run

    def _through_job_server(self, handler: Handler) -> Callable[[Request], Response]:
        """An endpoint that needs the job server: while it is down the request waits for
        it, then answers 500 "Unable to start the transfer." as the real approve does."""
        endpoint = self._endpoint(handler)
        job_server = self.sim.job_server

        def run(request: Request) -> Response:
            if not self._authenticated(request):
                return endpoint(request)
            if not job_server.up and not job_server.wait_until_up(job_server.wait_seconds):
                return error("Unable to start the transfer.", 500)
            if job_server.slow_seconds:
                time.sleep(job_server.slow_seconds)
            return endpoint(request)

        return run

    def _add(self, pattern: str, **methods: Handler) -> None:
        self.router.add(pattern, {m: self._endpoint(h) for m, h in methods.items()})

    def _redirect_to_slash(self, pattern: str) -> None:
        """Routes that need a trailing slash answer 301 without one, before anything else."""

        def redirect(request: Request) -> Response:
            location = request.path + "/"
            if request.query_string:
                location += "?" + request.query_string
            return empty_response(301, [("Location", location)])

        self.router.add(pattern, dict.fromkeys(ALL_METHODS, redirect))

    def _add_routes(self) -> None:
        add, slash = self._add, self._redirect_to_slash
        add("/api/transfer/start_transfer/", POST=self.start_transfer)
        slash("/api/transfer/start_transfer")
        add("/api/transfer/unapproved/?", GET=self.unapproved)
        self.router.add("/api/transfer/approve/?", {"POST": self._through_job_server(self.approve)})
        add(f"/api/transfer/status/(?P<uuid>{UUID})/?", GET=self.transfer_status)
        add(f"/api/transfer/(?P<uuid>{UUID})/delete/", DELETE=self.hide_transfer)
        slash(f"/api/transfer/{UUID}/delete")
        add("/api/transfer/completed/?", GET=self.completed_transfers)
        add("/api/transfer/reingest/?", POST=self.reingest_transfer)
        add(f"/api/ingest/status/(?P<uuid>{UUID})/?", GET=self.ingest_status)
        add(f"/ingest/status/(?P<uuid>{UUID})/?", GET=self.ingest_status)
        add(f"/api/ingest/(?P<uuid>{UUID})/delete/", DELETE=self.hide_sip)
        slash(f"/api/ingest/{UUID}/delete")
        add("/api/ingest/waiting/?", GET=self.waiting)
        add("/api/ingest/completed/?", GET=self.completed_sips)
        add("/api/ingest/reingest/?", POST=self.reingest_sip)
        add("/api/ingest/reingest/approve/?", POST=self.approve_reingest)
        add("/api/ingest/copy_metadata_files/", POST=self.copy_metadata_files)
        slash("/api/ingest/copy_metadata_files")
        for prefix in ("/api", "/api/filesystem"):
            add(f"{prefix}/administration/dips/accessapp/levels/", GET=self.levels)
            slash(f"{prefix}/administration/dips/accessapp/levels")
        add("/api/administration/dips/accessapp/fetch_levels/", GET=self.fetch_levels)
        slash("/api/administration/dips/accessapp/fetch_levels")
        add(f"/api/v2beta/jobs/(?P<uuid>{UUID})/?", GET=self.jobs)
        add(f"/api/v2beta/task/(?P<uuid>{UUID})/?", GET=self.task)
        add("/api/filesystem/metadata/", GET=self.path_metadata, POST=self.set_path_metadata)
        slash("/api/filesystem/metadata")
        add("/api/processing-configuration/?", GET=self.processing_configurations)
        add(
            r"/api/processing-configuration/(?P<name>\w{1,16}).*",
            GET=self.processing_configuration,
            DELETE=self.delete_processing_configuration,
        )
        add("/api/v2beta/package/?", POST=self.create_package, GET=self.list_packages)
        add(r"/api/v2beta/validate/(?P<validator>[-\w]+)/?", POST=self.validate)
        add_dashboard_routes(self.router, self.sim, slash)
        add_control_routes(self.router, self.sim)

    @staticmethod
    def _fields(request: Request) -> dict[str, Any]:
        """Form fields or a JSON object, whichever the client sent."""
        if request.is_json:
            try:
                body = request.json()
            except ValueError:
                return {}
            return body if isinstance(body, dict) else {}
        return {key: values[-1] for key, values in request.form.items()}

    @staticmethod
    def _field_list(request: Request, *names: str) -> list[str]:
        if request.is_json:
            try:
                body = request.json()
            except ValueError:
                return []
            for name in names:
                value = body.get(name) if isinstance(body, dict) else None
                if value is not None:
                    return (
                        [str(item) for item in value] if isinstance(value, list) else [str(value)]
                    )
            return []
        for name in names:
            if name in request.form:
                return request.form_list(name)
        return []

    # -- transfer ---------------------------------------------------------

    def start_transfer(self, request: Request, now: datetime) -> Response:
        fields = self._fields(request)
        name = str(fields.get("name") or "").strip()
        transfer_type = str(fields.get("type") or "standard")
        paths = self._field_list(request, "paths[]", "paths")
        row_ids = self._field_list(request, "row_ids[]", "rows_id[]", "row_ids")
        if not name:
            return error("No transfer name provided.", 500)
        if not paths:
            return error("No path provided.", 500)
        decoded = [decode_base64(path) for path in paths]  # bad base64: HTML 500, like the real one
        if len(decoded) > 1 and len(row_ids) < len(decoded):
            return error("list index out of range", 500)
        if transfer_type not in data.APPROVALS:
            transfer_type = "standard"  # unknown types are treated as standard
        sources = []
        for entry in decoded:
            location, path = split_location_path(entry)
            try:
                sources.append(
                    self.sim.storage.resolve_transfer_source(
                        location_uuid=location, relative_path=path, pipeline=self.sim.pipeline
                    )
                )
            except LookupError:
                return error(f"Location {location} is not associated with this pipeline", 500)
            except FileNotFoundError:
                return error(f"{path} does not exist", 500)
        unit = self.state.start_transfer(
            name=name, transfer_type=transfer_type, sources=sources, now=now
        )
        self.sim.record_start(name, unit.uuid)
        active = data.APPROVALS[transfer_type].active_directory
        path = f"{SHARED_DIRECTORY}watchedDirectories/activeTransfers/{active}/{unit.name}/"
        return json_response({"message": "Copy successful.", "path": path})

    def unapproved(self, request: Request, now: datetime) -> Response:
        t = self.state.seconds(now)
        results = [
            {"type": unit.transfer_type, "directory": unit.name, "uuid": unit.uuid}
            for unit in self.state.visible_units()
            if unit.is_transfer
            and not unit.hidden
            and data.APPROVALS[unit.transfer_type].listed_as_unapproved
            and unit.first_job_at <= t
            and unit.step_status(0, t) == "USER_INPUT"
        ]
        return json_response(
            {"message": "Fetched unapproved transfers successfully.", "results": results}
        )

    def approve(self, request: Request, now: datetime) -> Response:
        fields = self._fields(request)
        directory = str(fields.get("directory") or "").rstrip("/")
        transfer_type = fields.get("type", "standard")
        if not directory:
            return error("Please specify a transfer directory.", 500)
        if not transfer_type:
            return error("Please specify a transfer type.", 500)
        if transfer_type not in data.APPROVALS:
            return error("Invalid transfer type.", 500)
        directory = directory.rsplit("/", 1)[-1]
        unit = self.state.approve(directory=directory, transfer_type=transfer_type, now=now)
        if unit is None:
            return error("Unable to start the transfer.", 500)
        return json_response({"message": "Approval successful.", "uuid": unit.uuid})

    def _status(self, unit_uuid: str, kind: str, now: datetime) -> Response:
        label = "transfer" if kind == TRANSFER else "SIP"
        try:
            unit = self.state.get(unit_uuid, kind)
            record = unit.status(self.state.seconds(now))
        except UnknownUnit:
            unit_type = "unitTransfer" if kind == TRANSFER else "unitSIP"
            message = f"Cannot fetch {unit_type} with UUID {unit_uuid}"
            return json_response({"type": label, "message": message, "error": True}, 400)
        except NoJobsYet:
            return error(f"Unable to determine the status of the unit {unit_uuid}", 400)
        body: dict[str, Any] = {"status": record["status"], "name": unit.name}
        if "sip_uuid" in record:
            body["sip_uuid"] = record["sip_uuid"]
        key = "microservices" if kind == SIP and unit.plural_microservice_key else "microservice"
        body[key] = record["microservice"]
        body.update(
            {
                "directory": record["directory"],
                "path": record["path"],
                "message": f"Fetched status for {unit.uuid} successfully.",
                "type": label,
                "uuid": unit.uuid,
            }
        )
        return json_response(body)

    def transfer_status(self, request: Request, now: datetime) -> Response:
        return self._status(request.params["uuid"], TRANSFER, now)

    def ingest_status(self, request: Request, now: datetime) -> Response:
        return self._status(request.params["uuid"], SIP, now)

    def _hide(self, unit_uuid: str, kind: str, now: datetime) -> Response:
        try:
            uuid.UUID(unit_uuid)
        except ValueError:
            return json_response({"removed": False}, 500)
        try:
            unit = self.state.get(unit_uuid, kind)
            status = unit.status(self.state.seconds(now))["status"]
        except (UnknownUnit, NoJobsYet):
            return json_response({"removed": False}, 409)
        if unit.hidden or status not in FINISHED:
            return json_response({"removed": False}, 409)
        unit.hidden = True
        return json_response({"removed": True})

    def hide_transfer(self, request: Request, now: datetime) -> Response:
        return self._hide(request.params["uuid"], TRANSFER, now)

    def hide_sip(self, request: Request, now: datetime) -> Response:
        return self._hide(request.params["uuid"], SIP, now)

    def _completed(self, kind: str, now: datetime) -> Response:
        t = self.state.seconds(now)
        results = []
        for unit in self.state.visible_units():
            if unit.kind != kind or unit.hidden:
                continue
            try:
                if unit.status(t)["status"] == "COMPLETE":
                    results.append(unit.uuid)
            except NoJobsYet:
                continue  # skipped, as the real service does
        # The ingest list carries the transfers' message too, as in the docs sample.
        return json_response({"message": COMPLETED_MESSAGE, "results": results})

    def completed_transfers(self, request: Request, now: datetime) -> Response:
        return self._completed(TRANSFER, now)

    def completed_sips(self, request: Request, now: datetime) -> Response:
        return self._completed(SIP, now)

    def _reingest_fields(self, request: Request) -> tuple[str, str] | None:
        fields = self._fields(request)
        name, aip_uuid = fields.get("name"), fields.get("uuid")
        if not name or not aip_uuid:
            return None
        return str(name), str(aip_uuid).lower()

    def reingest_transfer(self, request: Request, now: datetime) -> Response:
        fields = self._reingest_fields(request)
        if fields is None:
            return error('"name" and "uuid" are required.', 400)
        name, aip_uuid = fields
        try:
            unit = self.state.reingest_transfer(name=name, aip_uuid=aip_uuid, now=now)
        except ValueError as exc:
            return error(str(exc), 400)
        return json_response({"message": "Approval successful.", "reingest_uuid": unit.uuid})

    # -- ingest -----------------------------------------------------------

    def reingest_sip(self, request: Request, now: datetime) -> Response:
        fields = self._reingest_fields(request)
        if fields is None:
            return error('"name" and "uuid" are required.', 400)
        name, aip_uuid = fields
        try:
            unit = self.state.start_partial_reingest(name=name, aip_uuid=aip_uuid, now=now)
        except ValueError as exc:
            return error(str(exc), 400)
        return json_response({"message": "Approval successful.", "reingest_uuid": unit.uuid})

    def approve_reingest(self, request: Request, now: datetime) -> Response:
        sip_uuid = str(self._fields(request).get("uuid") or "")
        if not sip_uuid:
            return error('"uuid" is required.', 400)
        if not self.state.approve_partial_reingest(sip_uuid=sip_uuid, now=now):
            return error("Unable to approve the partial reingest.", 400)
        return json_response({"message": "Approval successful."})

    def waiting(self, request: Request, now: datetime) -> Response:
        t = self.state.seconds(now)
        results = []
        for unit in self.state.visible_units():
            if unit.hidden:
                continue
            for index in unit.waiting_jobs(t):
                directory = unit.status(t)["directory"]
                results.append(
                    {
                        "sip_directory": directory,
                        "sip_uuid": unit.uuid,
                        "sip_name": unit.name,
                        "microservice": unit.route.steps[index].job,
                    }
                )
        return json_response({"message": "Fetched units successfully.", "results": results})

    def copy_metadata_files(self, request: Request, now: datetime) -> Response:
        sip_uuid = str(self._fields(request).get("sip_uuid") or "")
        paths = self._field_list(request, "source_paths[]", "source_paths")
        if not sip_uuid or not paths:
            return error("sip_uuid and source_paths[] both required.", 400)
        try:
            self.state.get(sip_uuid, SIP)
        except UnknownUnit as exc:
            raise InputError(sip_uuid) from exc  # the real one crashes with an HTML 500
        added = []
        for encoded in paths:
            decoded = decode_base64(encoded)
            location, path = split_location_path(decoded)
            try:
                self.sim.storage.resolve_transfer_source(
                    location_uuid=location, relative_path=path, pipeline=self.sim.pipeline
                )
            except LookupError:
                return error(f"Location {location} is not associated with this pipeline", 500)
            except FileNotFoundError:
                return error(f"{path} does not exist", 500)
            added.append(decoded)
        self.state.metadata_files.setdefault(sip_uuid.lower(), []).extend(added)
        return json_response({"error": False, "message": "Metadata files added successfully."}, 201)

    # -- administration ---------------------------------------------------

    def _level_list(self) -> list[dict[str, str]]:
        return [{level_uuid: name} for level_uuid, name in self.state.levels]

    def levels(self, request: Request, now: datetime) -> Response:
        return json_response(self._level_list())

    def fetch_levels(self, request: Request, now: datetime) -> Response:
        # The access system behind this call fails as often as the service itself.
        if self.sim.faults.chance(self.sim.faults.error_rate):
            message = "Unable to fetch levels of description from the access system."
            return json_response({"success": False, "error": message}, 500)
        return json_response(self._level_list())

    # -- units ------------------------------------------------------------

    def jobs(self, request: Request, now: datetime) -> Response:
        unit_uuid = request.params["uuid"]
        microservice = request.query_value("microservice")
        name = request.query_value("name")
        if microservice is not None:
            microservice = microservice.removeprefix("Microservice:").strip()
        if name is not None:
            name = name.removeprefix("Job:").strip()
        try:
            unit = self.state.get(unit_uuid)
        except UnknownUnit:
            unit = None
        if unit is None or not unit.started_steps(self.state.seconds(now)):
            return error(f"No jobs found for unit: {unit_uuid}", 400)
        records = job_records(
            self.state,
            unit,
            now,
            microservice=microservice,
            link_uuid=request.query_value("link_uuid"),
            name=name,
            detailed="detailed" in request.query,
        )
        return json_response(records)

    def task(self, request: Request, now: datetime) -> Response:
        task_uuid = request.params["uuid"]
        record = find_task(self.state, task_uuid, now)
        if record is None:
            return error(f"Task with UUID {task_uuid} does not exist", 400)
        return json_response(record)

    # -- other ------------------------------------------------------------

    @staticmethod
    def _arranged(path: str) -> bool:
        return path.startswith("/arrange/") and len(path) > len("/arrange/")

    def path_metadata(self, request: Request, now: datetime) -> Response:
        path = request.query_value("path") or ""
        if not self._arranged(path):
            return not_found(request)
        level = self.state.path_levels.get(path, "")
        return json_response({"level_of_description": level})

    def set_path_metadata(self, request: Request, now: datetime) -> Response:
        fields = self._fields(request)
        path = str(fields.get("path") or "")
        if not self._arranged(path):
            return not_found(request)
        names = dict(self.state.levels)
        level_id = str(fields.get("level_of_description") or "")
        if level_id in names:
            self.state.path_levels[path] = names[level_id]
        else:
            self.state.path_levels.pop(path, None)  # an unknown level clears it
        return json_response({"success": True}, 201)

    def processing_configurations(self, request: Request, now: datetime) -> Response:
        return json_response({"processing_configurations": sorted(self.configs)})

    def processing_configuration(self, request: Request, now: datetime) -> Response:
        accept = request.header("Accept").lower()
        if accept != "*/*" and "xml" not in accept:
            return empty_response(415)
        name = request.params["name"]
        if name not in self.configs and name in BUILTIN_NAMES:
            self.configs[name] = builtin_config(name)  # built-ins come back when missing
        if name not in self.configs:
            return json_response(
                {"success": False, "error": f'No such processing config "{name}".'}, 404
            )
        return text_response(self.configs[name], 200, "text/xml")

    def delete_processing_configuration(self, request: Request, now: datetime) -> Response:
        name = request.params["name"]
        if self.configs.pop(name, None) is None:
            return json_response(
                {"success": False, "error": f'No such processing config "{name}".'}, 404
            )
        return json_response({"success": True})

    # -- beta -------------------------------------------------------------

    def create_package(self, request: Request, now: datetime) -> Response:
        undecodable = error('Parameter "path" cannot be decoded.', 400)
        try:
            body = request.json()
        except ValueError:
            return undecodable
        if not isinstance(body, dict) or not isinstance(body.get("path"), str):
            return undecodable
        try:
            location, path = split_location_path(decode_base64(body["path"]))
        except InputError:
            return undecodable
        name = body.get("name")
        transfer_type = body.get("type", "standard")
        auto_approve = body.get("auto_approve", True)
        if (
            not isinstance(name, str)
            or not name.strip()
            or transfer_type not in data.APPROVALS
            or not isinstance(auto_approve, bool)
        ):
            return error("Package cannot be created", 500)
        try:
            source = self.sim.storage.resolve_transfer_source(
                location_uuid=location, relative_path=path, pipeline=self.sim.pipeline
            )
        except (LookupError, FileNotFoundError):
            # Accepted, then silently dropped: the unit never appears.
            return json_response({"id": random_uuid(self.state.api_rng())}, 202)
        unit = self.state.create_package(
            name=name.strip(),
            transfer_type=transfer_type,
            sources=[source],
            auto_approve=auto_approve,
            now=now,
        )
        self.sim.record_start(name.strip(), unit.uuid)
        return json_response({"id": unit.uuid}, 202)

    def list_packages(self, request: Request, now: datetime) -> Response:
        return empty_response(501)

    def validate(self, request: Request, now: datetime) -> Response:
        validator = VALIDATORS.get(request.params["validator"])
        if validator is None:
            accepted = ",".join(VALIDATORS)
            return error(f"Unknown validator. Accepted values: {accepted}", 404)
        if request.content_type != CSV_CONTENT_TYPE:
            return error(f'Content type should be "{CSV_CONTENT_TYPE}"', 400)
        try:
            text = request.body.decode("utf-8")
        except UnicodeDecodeError:
            return json_response({"valid": False, "reason": "The CSV is not UTF-8."}, 400)
        reason = validator(text)
        if reason is not None:
            return json_response({"valid": False, "reason": reason}, 400)
        return json_response({"valid": True})


def make_workflow_app(sim: Any) -> WsgiApp:
    return WorkflowApi(sim).router
