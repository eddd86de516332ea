"""The shared vocabulary and small helpers every layer may use.

Belongs here: the words a status or a size is shown in, cache locks, redaction of
secrets, the htmx request type, pipeline settings as typed values, and other small
helpers with no opinion about pages or upstream services. May import the standard
library, Django and third-party packages only: nothing else from `dashboard`.
"""
