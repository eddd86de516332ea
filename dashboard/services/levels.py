"""Levels of description and the level of an arranged path (`/api/filesystem/metadata/`).

Reads go through tasks into the cache (`levels_fetch`, `path_metadata_fetch`); pages and
the API show what is stored and never wait on the service. Two actions call it while
the person waits, as every action does: fetching the levels again from the access
system (admins; it replaces the pipeline's list) and setting a path's level. Both are
audited and idempotent (see `actions.action_perform`).
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext as _

from dashboard.clients.base import UpstreamUnavailable
from dashboard.clients.workflow import LevelOfDescription, WorkflowError, WorkflowNotFound
from dashboard.lib.cache_state import (
    LEVELS_REQUEST_TTL,
    LEVELS_TTL,
    levels_key,
    levels_request_key,
    path_metadata_key,
    path_metadata_request_key,
)
from dashboard.lib.secret_redaction import redact_secrets
from dashboard.selectors.levels import levels_get
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    action_perform,
    workflow_client,
)

log = logging.getLogger(__name__)

FETCH_LEVELS_PERMISSION = "dashboard.fetch_levels"
SET_LEVEL_PERMISSION = "dashboard.set_path_metadata"


def _words(exc: WorkflowError) -> str:
    if isinstance(exc, UpstreamUnavailable):
        return _("The workflow service did not answer in time or could not be reached.")
    return redact_secrets(exc.upstream_message or exc.message)


def _store_levels(pipeline: str, levels: tuple[LevelOfDescription, ...]) -> None:
    cache.set(
        levels_key(pipeline),
        {
            "levels": [(level.uuid, level.name) for level in levels],
            "fetched_at": timezone.now(),
            "listed_at": timezone.now(),
            "error": "",
        },
        LEVELS_TTL,
    )


# --- reads, by tasks ---------------------------------------------------------------------


def levels_request(*, pipeline: str) -> bool:
    """Note that a fetch is about to be queued; False when one is already under way."""
    return cache.add(levels_request_key(pipeline), timezone.now(), LEVELS_REQUEST_TTL)


def levels_request_dropped(*, pipeline: str) -> None:
    cache.delete(levels_request_key(pipeline))


def levels_fetch(*, pipeline: str) -> dict[str, Any]:
    """List the pipeline's levels and store them; a failure keeps the last list."""
    try:
        _store_levels(pipeline, workflow_client(pipeline).list_levels_of_description())
    except (WorkflowError, ActionNotPossible) as exc:
        log.info("levels of %s not fetched: %s", pipeline, exc)
        earlier = cache.get(levels_key(pipeline)) or {"levels": [], "listed_at": None}
        error = _words(exc) if isinstance(exc, WorkflowError) else str(exc)
        cache.set(
            levels_key(pipeline),
            {**earlier, "fetched_at": timezone.now(), "error": error},
            LEVELS_TTL,
        )
    levels_request_dropped(pipeline=pipeline)
    stored: dict[str, Any] = cache.get(levels_key(pipeline))
    return stored


def path_metadata_request(*, pipeline: str, path: str) -> bool:
    return cache.add(path_metadata_request_key(pipeline, path), timezone.now(), LEVELS_REQUEST_TTL)


def path_metadata_request_dropped(*, pipeline: str, path: str) -> None:
    cache.delete(path_metadata_request_key(pipeline, path))


def _store_path(pipeline: str, path: str, **values: Any) -> dict[str, Any]:
    stored = {
        "path": path,
        "level": "",
        "missing": False,
        "error": "",
        "fetched_at": timezone.now(),
        **values,
    }
    cache.set(path_metadata_key(pipeline, path), stored, LEVELS_TTL)
    return stored


def path_metadata_fetch(*, pipeline: str, path: str) -> dict[str, Any]:
    """Read one arranged path's level of description and store it."""
    try:
        metadata = workflow_client(pipeline).get_path_metadata(path)
    except WorkflowError as exc:
        log.info("metadata of %s in %s not fetched: %s", path, pipeline, exc)
        missing = isinstance(exc, WorkflowNotFound) or exc.status == 404
        error = (
            _(
                "The workflow service does not know this arranged path (only paths under "
                "/arrange/ that are not yet made into a SIP have metadata)."
            )
            if missing
            else _words(exc)
        )
        stored = _store_path(pipeline, path, missing=missing, error=error)
    except ActionNotPossible as exc:
        stored = _store_path(pipeline, path, error=str(exc))
    else:
        stored = _store_path(pipeline, path, level=metadata.level_of_description or "")
    path_metadata_request_dropped(pipeline=pipeline, path=path)
    return stored


# --- actions -------------------------------------------------------------------------------


def levels_refetch(
    *, user: User | AnonymousUser, pipeline: str, idempotency_key: str
) -> ActionResult:
    """Replace the pipeline's levels with the access system's (admins only)."""

    def call() -> UpstreamAnswer:
        levels = workflow_client(pipeline).fetch_levels_of_description()
        _store_levels(pipeline, levels)
        names = ", ".join(level.name for level in levels[:12])
        return UpstreamAnswer(
            _(
                "The workflow service fetched %(count)s levels of description from the "
                "access system: %(names)s."
            )
            % {"count": len(levels), "names": names}
        )

    return action_perform(
        user=user,
        permission=FETCH_LEVELS_PERMISSION,
        action="levels_fetch",
        idempotency_key=idempotency_key,
        target_kind="pipeline",
        target=pipeline,
        target_label=pipeline,
        pipeline=pipeline,
        call=call,
    )


def path_level_set(
    *,
    user: User | AnonymousUser,
    pipeline: str,
    path: str,
    level_uuid: str,
    idempotency_key: str,
) -> ActionResult:
    """Set (or, with an empty `level_uuid`, clear) the level of an arranged path."""

    def call() -> UpstreamAnswer:
        stored = levels_get(pipeline=pipeline)
        names = dict(stored.levels) if stored is not None else {}
        if level_uuid and level_uuid not in names:
            raise ActionNotPossible(
                _("This level of description is not in the pipeline's list (any more).")
            )
        workflow_client(pipeline).update_path_metadata(path=path, level_of_description=level_uuid)
        name = names.get(level_uuid, "")
        _store_path(pipeline, path, level=name)
        if not name:
            return UpstreamAnswer(
                _("The workflow service cleared the level of %(path)s.") % {"path": path},
                status=201,
            )
        return UpstreamAnswer(
            _("The workflow service set the level of description of %(path)s to %(level)s.")
            % {"path": path, "level": name},
            status=201,
        )

    return action_perform(
        user=user,
        permission=SET_LEVEL_PERMISSION,
        action="path_level_set",
        idempotency_key=idempotency_key,
        target_kind="arranged path",
        target=f"{pipeline}:{path}"[:255],
        target_label=path,
        pipeline=pipeline,
        parameters={"path": path, "level_of_description": level_uuid},
        call=call,
    )
