"""The HTML pages and their htmx partials: thin adapters.

A view validates input with a form, calls one selector (to read) or one service (to
act), queues work through `dashboard.tasks` when an action needs a worker, and renders
a template. Views never call an upstream service: no `dashboard.clients` import.
"""
