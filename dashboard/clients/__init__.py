"""Clients of the two upstream services Lookout watches.

The only code that speaks HTTP to the services: `workflow.py` to the workflow service,
`storage.py` to the storage service, both built on `base.py`. Typed results, explicit
timeouts, their own exception classes, every quirk parsed in one place. Clients import
no models, no selectors or services, and nothing from Django but what `dashboard.lib`
brings; only `dashboard.services` calls them, through `get_workflow_client()` and
`get_storage_client()`.
"""

from __future__ import annotations
