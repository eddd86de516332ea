"""Django's admin, hardened: no self-escalation, and account changes audit-logged.

A Lookout admin (the admin group, not a superuser) manages users, but may not give anyone,
themselves included, more than they hold: superuser and staff flags and per-user
permissions are read-only to them, they may only assign groups whose permissions they
have all of, and they may not change or delete an account that can do more than they can
(its password would be theirs to set). Every change of groups, flags or permissions is an
audit row, and so is lifting a login lock (deleting a django-axes access attempt).
"""

from __future__ import annotations

from typing import Any

from axes.admin import AccessAttemptAdmin as AxesAccessAttemptAdmin  # type: ignore[import-untyped]  # no hints
from axes.models import AccessAttempt  # type: ignore[import-untyped]  # no hints
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group, Permission, User
from django.db.models import Count, Q, QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from dashboard.services import accounts

ESCALATING_FIELDS = ("is_superuser", "is_staff", "user_permissions")


def _held_permissions(user: Any) -> set[str]:
    return set(user.get_all_permissions())


def _grantable_groups(user: Any) -> QuerySet[Group]:
    """Groups whose every permission `user` holds (all of them for a superuser)."""
    groups = Group.objects.all()
    if user.is_superuser:
        return groups
    held = _held_permissions(user)
    allowed = [
        p.pk
        for p in Permission.objects.select_related("content_type")
        if f"{p.content_type.app_label}.{p.codename}" in held
    ]
    return groups.annotate(
        beyond=Count("permissions", filter=~Q(permissions__pk__in=allowed))
    ).filter(beyond=0)


def _exceeds(account: User, actor: Any) -> bool:
    """`account` can do something `actor` cannot."""
    if actor.is_superuser:
        return False
    if account.is_superuser:
        return True
    return not _held_permissions(account) <= _held_permissions(actor)


class UserAdmin(DjangoUserAdmin):
    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        if request.user.is_superuser:
            return fields
        return fields + ESCALATING_FIELDS

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "groups":
            kwargs["queryset"] = _grantable_groups(request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and _exceeds(obj, request.user):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and _exceeds(obj, request.user):
            return False
        return super().has_delete_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: User, form: ModelForm, change: bool) -> None:
        # Groups are saved after the user (save_related); remember the state before both.
        request._lookout_role_before = (  # type: ignore[attr-defined]
            accounts.role_state(User.objects.get(pk=obj.pk)) if change else None
        )
        super().save_model(request, obj, form, change)

    def save_related(
        self, request: HttpRequest, form: ModelForm, formsets: Any, change: bool
    ) -> None:
        super().save_related(request, form, formsets, change)
        user = form.instance
        assert isinstance(user, User)
        user.refresh_from_db()
        accounts.role_change_audit(
            actor=request.user,
            user=user,
            before=getattr(request, "_lookout_role_before", None),
            after=accounts.role_state(user),
        )


class AccessAttemptAdmin(AxesAccessAttemptAdmin):
    """Deleting an access attempt lifts its login lock; each deletion is audit-logged."""

    def delete_model(self, request: HttpRequest, obj: AccessAttempt) -> None:
        accounts.login_lock_lift_audit(
            actor=request.user, username=obj.username or "", ip_address=obj.ip_address or ""
        )
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[AccessAttempt]) -> None:
        for attempt in queryset:
            accounts.login_lock_lift_audit(
                actor=request.user,
                username=attempt.username or "",
                ip_address=attempt.ip_address or "",
            )
        super().delete_queryset(request, queryset)


admin.site.unregister(User)
admin.site.register(User, UserAdmin)
if admin.site.is_registered(AccessAttempt):
    admin.site.unregister(AccessAttempt)
admin.site.register(AccessAttempt, AccessAttemptAdmin)
