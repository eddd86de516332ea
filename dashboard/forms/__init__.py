"""Django forms that validate query parameters and action confirmations.

Adapters: they may read choices through selectors and `dashboard.lib`; they never
call a service, a task or a client.
"""
