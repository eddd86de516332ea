"""Clients of the two upstream services Lookout watches.

`workflow.py` talks to the workflow service, `storage.py` to the storage service; both
build on `base.py`. Only services (`dashboard/services.py`) should call them, through
`get_workflow_client()` and `get_storage_client()`.
"""

from __future__ import annotations
