"""Browsing a transfer source location to pick folders (or files), for the start-transfer
wizard and for adding metadata files to a SIP.

Listings come from the storage tasks: a missing or stale one is queued and the page
polls while "Loading…"; nothing here calls the storage service while a person waits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dashboard import tasks
from dashboard.forms.storage import encode_browse_path
from dashboard.forms.transfers import decode_pick
from dashboard.selectors import storage as storage_selectors
from dashboard.views.storage import LISTING_LIVE_TRIGGER


def picker_context(
    *,
    location: storage_selectors.LocationRow,
    path_text: str,
    url: Callable[[bytes], str],
    files: bool = False,
) -> dict[str, Any]:
    """What the picking table needs: rows (row, encoded path, browse URL), crumbs, state.

    `url(raw_path)` is the page's own address for a folder; `files` lists files too.
    """
    error = ""
    path = b""
    if path_text:
        try:
            path = decode_pick(path_text)
        except Exception as exc:  # noqa: BLE001 - a ValidationError, in words for the page
            error = "; ".join(getattr(exc, "messages", [str(exc)]))
    listing = (
        None
        if error
        else storage_selectors.location_listing_get(location_uuid=location.uuid, path=path)
    )
    queued = False
    if not error and (listing is None or listing.stale):
        queued = tasks.location_listing_enqueue(location.uuid, path)
    rows = []
    if listing is not None and listing.entries is not None:
        rows = [
            (row, encode_browse_path(row.raw_path), url(row.raw_path))
            for row in storage_selectors.browse_rows(entries=listing.entries, path=path)
            if files or row.is_directory
        ]
    return {
        "location": location,
        "path": path,
        "path_encoded": encode_browse_path(path) if path else "",
        "browse_url": url(path),
        "listing": listing,
        "waiting": not error and (listing is None or listing.refreshing or queued),
        "live_trigger": LISTING_LIVE_TRIGGER,
        "rows": rows,
        "crumbs": [
            (crumb, url(crumb.raw_path))
            for crumb in storage_selectors.browse_breadcrumbs(
                location_label=location.label, path=path
            )
        ],
        "error": error or (listing.error if listing is not None else ""),
        # The address's path did not decode: the page answers 400.
        "bad_path": bool(error),
    }
