"""Processing configurations: fetched from a pipeline by a task, kept in the cache.

The names a pipeline offers are listed by its service (`GET /api/processing-configuration/`,
`processing_config_names_fetch`); older services cannot list them (404), and then the
pipeline's `processing_configs` setting names them. Each one's XML is fetched with
`get_processing_configuration` (parsed with defusedxml by the client) and stored with its
fetch time, its choices as the client parsed them, and the error of the last fetch in
words. A failed fetch keeps the last XML that worked; a name the service does not know
is stored as missing. Pages and the API read it through
`selectors.processing_configs` and never wait on the service.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from dashboard.clients.base import UpstreamUnavailable
from dashboard.clients.workflow import (
    WorkflowClient,
    WorkflowError,
    WorkflowNotFound,
    get_workflow_client,
)
from dashboard.lib.cache_state import (
    PROCESSING_CONFIG_REQUEST_TTL,
    PROCESSING_CONFIG_TTL,
    processing_config_key,
    processing_config_names_key,
    processing_config_names_request_key,
    processing_config_request_key,
)
from dashboard.lib.pipelines import pipeline_get
from dashboard.lib.secret_redaction import redact_secrets

log = logging.getLogger(__name__)


def _client_for(pipeline: str) -> WorkflowClient:
    """The pipeline's workflow client; LookupError when it is no longer configured."""
    config = pipeline_get(pipeline)
    if config is None:
        raise LookupError(pipeline)
    return get_workflow_client(config.client_config())


def processing_config_request(*, pipeline: str, name: str) -> bool:
    """Note that a fetch is about to be queued; False when one is already under way."""
    return cache.add(
        processing_config_request_key(pipeline, name),
        timezone.now(),
        PROCESSING_CONFIG_REQUEST_TTL,
    )


def processing_config_request_dropped(*, pipeline: str, name: str) -> None:
    cache.delete(processing_config_request_key(pipeline, name))


def _fetch_error(exc: WorkflowError) -> str:
    if isinstance(exc, UpstreamUnavailable):
        return (
            "The workflow service did not answer in time or could not be reached, so this "
            "configuration cannot be shown now. Try again in a moment."
        )
    words = redact_secrets(exc.upstream_message or exc.message)
    return f"The workflow service did not give this configuration: {words}"


def processing_config_fetch(
    *, pipeline: str, name: str, client: WorkflowClient | None = None
) -> dict[str, Any]:
    """Fetch one configuration's XML from the pipeline and store it in the cache."""
    key = processing_config_key(pipeline, name)
    earlier = cache.get(key) or {}
    stored: dict[str, Any] = {
        "name": name,
        "xml": earlier.get("xml"),
        "choices": earlier.get("choices", []),
        "listed_at": earlier.get("listed_at"),
        "missing": False,
        "error": "",
    }
    try:
        client = client or _client_for(pipeline)
        result = client.get_processing_configuration(name)
    except LookupError:
        stored["error"] = f"Pipeline {pipeline!r} is no longer configured."
    except ValueError:
        # The service cuts names at 16 word characters: it could never give this one.
        stored.update(xml=None, choices=[], missing=True)
        stored["error"] = "This name is not one the workflow service can have."
    except WorkflowError as exc:
        log.info("processing configuration %s of %s not fetched: %s", name, pipeline, exc)
        if isinstance(exc, WorkflowNotFound) or exc.status == 404:
            stored.update(xml=None, choices=[], missing=True)
            stored["error"] = redact_secrets(exc.upstream_message or exc.message)
        else:
            stored["error"] = _fetch_error(exc)
    else:
        stored["xml"] = result.xml
        stored["choices"] = [
            {"applies_to": c.applies_to, "go_to_chain": c.go_to_chain, "label": c.label}
            for c in result.choices
        ]
        stored["listed_at"] = timezone.now()
    stored["fetched_at"] = timezone.now()
    cache.set(key, stored, PROCESSING_CONFIG_TTL)
    processing_config_request_dropped(pipeline=pipeline, name=name)
    return stored


def processing_config_names_request(*, pipeline: str) -> bool:
    """Note that a listing is about to be queued; False when one is already under way."""
    return cache.add(
        processing_config_names_request_key(pipeline), timezone.now(), PROCESSING_CONFIG_REQUEST_TTL
    )


def processing_config_names_fetch(
    *, pipeline: str, client: WorkflowClient | None = None
) -> dict[str, Any]:
    """List the pipeline's configuration names from its service into the cache.

    A service that cannot list them (404: an older release) stores no names, so pages
    use the configured ones; one that does not answer keeps the last names it gave.
    """
    key = processing_config_names_key(pipeline)
    earlier = cache.get(key) or {}
    stored: dict[str, Any] = {"names": earlier.get("names"), "error": ""}
    try:
        client = client or _client_for(pipeline)
        names = client.list_processing_configurations()
    except LookupError:
        stored["error"] = f"Pipeline {pipeline!r} is no longer configured."
    except WorkflowError as exc:
        log.info("processing configuration names of %s not listed: %s", pipeline, exc)
        if isinstance(exc, WorkflowNotFound) or exc.status == 404:
            stored["names"] = None
        stored["error"] = redact_secrets(exc.upstream_message or exc.message)
    else:
        stored["names"] = list(names)
    stored["fetched_at"] = timezone.now()
    cache.set(key, stored, PROCESSING_CONFIG_TTL)
    cache.delete(processing_config_names_request_key(pipeline))
    return stored
