"""Reads: what pages, the wall and the API show, from what the pollers stored.

Belongs here: lists, details, counts, summaries and freshness, one module per area.
Selectors read the database and the cache only; they never call an upstream service
(no `dashboard.clients` import) and never write. They may use `dashboard.lib` and the
models.
"""
