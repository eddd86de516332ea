"""The JSON API under /api/v1/: serializers, API views, URLs and permissions.

A thin adapter like the views: parse input, call one selector or service, serialise.
May import selectors, services, tasks (to queue work), forms and `dashboard.lib`;
never a client.
"""
