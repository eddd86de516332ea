"""Writes: everything that changes Lookout's record or acts upstream.

Belongs here: the pollers (workflow units, storage sync), the operator actions and the
audit rows they leave, wall links, role groups. One module per area. Services are the
only code that calls the clients (`dashboard.clients`); they may read through
`dashboard.selectors` and use `dashboard.lib` and the models. They never import
`dashboard.tasks`, views or the API: where a write must queue work, its caller (a view
or a task) passes the queueing in.
"""
