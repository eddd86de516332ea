"""The wall screen (`/wall/`, `/wall/<token>/`) and the admin page for its links."""

from __future__ import annotations

from django.urls import path

from dashboard.views import wall

# The fixed paths come first: a token is 43 characters, so it never shadows them.
urlpatterns = [
    path("", wall.wall, name="wall"),
    path("links/", wall.wall_links, name="wall-links"),
    path("links/create/", wall.wall_link_create, name="wall-link-create"),
    path("links/<int:link_id>/revoke/", wall.wall_link_revoke, name="wall-link-revoke"),
    path("links/<int:link_id>/language/", wall.wall_link_language, name="wall-link-language"),
    path("<str:token>/", wall.wall_screen, name="wall-screen"),
]
