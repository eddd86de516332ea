"""The names of the roles: the Django groups a user can be put in.

Apart from `roles` (what each may do) so that the permission cache can name the groups
without importing what it serves."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    """The groups a user can be put in; `roles.py` gives what each may do."""

    VIEWER = "viewer", _("Viewer")
    OPERATOR = "operator", _("Operator")
    ADMIN = "admin", _("Admin")
