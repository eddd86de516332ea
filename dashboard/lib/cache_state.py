"""What Lookout keeps only in Django's cache: directory listings, processing
configurations, and their key names.

A directory listing can be fetched again from upstream at any time, and is, when
someone opens the directory. Everything else Lookout knows (units, jobs, freshness,
locks, the storage summary, package details, the package mirror and its sync cursor)
lives in the database.
"""

from __future__ import annotations

import hashlib

STATE_TTL = 7 * 24 * 3600


# The database is the record, the cache only caches. A browse listing is no record of
# Lookout's: it is a view of one directory upstream that can be fetched again at any
# time, so the cache is the right place for it, and an evicted or expired listing is
# simply fetched again when someone opens the directory.
LISTING_TTL = 3600


# How long a queued fetch counts as under way: the page waits for it that long at most,
# and no other fetch of the directory is queued meanwhile (a lost task frees it then).
LISTING_REQUEST_TTL = 120


def listing_id(location_uuid: str, path: bytes) -> str:
    """A short, key-safe name for one directory: paths are raw bytes of any length."""
    return f"{location_uuid}:{hashlib.sha256(path).hexdigest()}"


def listing_key(location_uuid: str, path: bytes) -> str:
    return f"storage:listing:{listing_id(location_uuid, path)}"


def listing_request_key(location_uuid: str, path: bytes) -> str:
    return f"storage:listing-requested:{listing_id(location_uuid, path)}"


# A processing configuration's XML is the workflow service's: fetched by a task when its
# page is opened, kept here with its fetch time (an evicted one is fetched again).
PROCESSING_CONFIG_TTL = 24 * 3600
PROCESSING_CONFIG_REQUEST_TTL = 120


def processing_config_key(pipeline: str, name: str) -> str:
    return f"workflow:processing-config:{pipeline}:{name}"


def processing_config_request_key(pipeline: str, name: str) -> str:
    return f"workflow:processing-config-requested:{pipeline}:{name}"


# The names of a pipeline's processing configurations, as its service lists them; read
# again when older than PROCESSING_CONFIG_NAMES_STALE (pages fall back to the configured
# names while none are stored, or when the service cannot list them).
PROCESSING_CONFIG_NAMES_STALE = 300


def processing_config_names_key(pipeline: str) -> str:
    return f"workflow:processing-config-names:{pipeline}"


def processing_config_names_request_key(pipeline: str) -> str:
    return f"workflow:processing-config-names-requested:{pipeline}"


# Levels of description and the level of each arranged path looked at: the workflow
# service's, fetched by a task when a page asks, kept here with the fetch time.
LEVELS_TTL = 24 * 3600
LEVELS_REQUEST_TTL = 120


def levels_key(pipeline: str) -> str:
    return f"workflow:levels:{pipeline}"


def levels_request_key(pipeline: str) -> str:
    return f"workflow:levels-requested:{pipeline}"


def path_metadata_key(pipeline: str, path: str) -> str:
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()
    return f"workflow:path-metadata:{pipeline}:{digest}"


def path_metadata_request_key(pipeline: str, path: str) -> str:
    return path_metadata_key(pipeline, path).replace(":path-metadata:", ":path-metadata-requested:")
