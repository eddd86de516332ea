"""Package operations, each one audited and idempotent through `actions.action_perform`.

- fixity check: queued as a Celery task; the result lands in `FixityCheck` history;
- download: opened here (so a 202 "not available locally" is refused before any byte is
  sent), streamed by the view;
- deletion and recovery requests: the storage service wants a user id above 0 and an
  e-mail address; Lookout sends the requesting Lookout user's own id and e-mail;
- reingest: type and, for a full one, a processing configuration;
- move: only to another enabled location with the same purpose; the service moves the
  package in the background, so it is "moving", not yet "moved", when this returns.

Each operation first checks, through `selectors.storage.package_operations`, that it is
offered for the package (the same check the pages make); a refusal is audited with the
reason and nothing is sent. `package_operation_refuse` records one for a POST that
never gets as far as an operation's own service (a crafted form, say).

After a change the package is fetched again at once, so its page shows the new
status, and a storage poll is queued for the locations' usage.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.utils.translation import gettext as _

from dashboard.clients.storage import ReingestType, StorageError
from dashboard.models import AuditEntry, StoragePackage
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    action_perform,
)

log = logging.getLogger(__name__)

OPERATE_PERMISSION = "dashboard.operate_packages"
DELETION_PERMISSION = "dashboard.request_package_deletion"
REINGEST_PERMISSION = "dashboard.reingest_package"

User = AuthUser | AnonymousUser


def _already_requested(kind: str) -> str:
    if kind == "deletion":
        return _("A deletion request already exists.")
    return _("A recovery request already exists.")


def _label(package: StoragePackage) -> str:
    return f"{package.package_type} {package.name or package.uuid}"


def _refresh(package_uuid: str) -> None:
    try:
        storage_services.package_refresh(uuid=package_uuid)
    except StorageError as exc:
        # The action worked; the next poll brings the new state instead.
        log.info("package %s not refreshed after an action: %s", package_uuid, exc)


def _perform(
    *,
    user: User,
    permission: str,
    action: str,
    package: StoragePackage,
    idempotency_key: str,
    call: Any,
    parameters: dict[str, Any] | None = None,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    return action_perform(
        user=user,
        permission=permission,
        action=action,
        idempotency_key=idempotency_key,
        target_kind="package",
        target=package.uuid,
        target_label=_label(package),
        parameters=parameters,
        call=call,
        after_success=after_success,
    )


# Audit action and permission of each operation, by the names the selector uses.
OPERATION_ACTIONS = {
    "fixity": ("package_fixity_check", OPERATE_PERMISSION),
    "download": ("package_download", OPERATE_PERMISSION),
    "delete": ("package_deletion_request", DELETION_PERMISSION),
    "recover": ("package_recovery_request", DELETION_PERMISSION),
    "reingest": ("package_reingest", REINGEST_PERMISSION),
    "move": ("package_move", OPERATE_PERMISSION),
}


def _offered(package: StoragePackage, name: str) -> None:
    """Raise ActionNotPossible, with the reason, when the package is not offered `name`."""
    operation = storage_selectors.package_operation_get(package=package, name=name)
    if operation is not None and not operation.available:
        raise ActionNotPossible(
            _("%(label)s is not offered: %(reason)s")
            % {"label": operation.label, "reason": operation.reason}
        )


def package_operation_refuse(
    *, user: User, package: StoragePackage, name: str, idempotency_key: str
) -> ActionResult:
    """Audit a POST of an operation the package is not offered, as refused with the reason.

    Nothing is sent upstream. Should the package have become eligible meanwhile, the
    refusal says to confirm again rather than acting on a form nobody was shown.
    """
    action, permission = OPERATION_ACTIONS[name]

    def call() -> UpstreamAnswer:
        _offered(package, name)
        raise ActionNotPossible(_("This operation is offered again now; please confirm it again."))

    return _perform(
        user=user,
        permission=permission,
        action=action,
        package=package,
        idempotency_key=idempotency_key,
        call=call,
    )


def repeated_submit_get(
    *, user: User, package: StoragePackage, idempotency_key: str
) -> ActionResult | None:
    """The earlier outcome when this confirmation was already submitted for this package.

    Checked before the form's other fields: after a move, say, the first submit's choice
    is no longer offered, and a second submit should hear "already done", not "invalid".
    """
    entry = AuditEntry.objects.filter(
        idempotency_key=idempotency_key, target=package.uuid, actor_id=getattr(user, "pk", None)
    ).first()
    return None if entry is None else ActionResult(entry=entry, repeated=True)


# --------------------------------------------------------------------------- fixity


def package_fixity_check(
    *,
    user: User,
    package: StoragePackage,
    idempotency_key: str,
    run_check: Callable[[int], None],
) -> ActionResult:
    """Record a fixity check and hand it to `run_check` (the caller queues the worker's
    task); the result is stored with the history when it is done."""
    created: list[int] = []

    def call() -> UpstreamAnswer:
        _offered(package, "fixity")
        check = storage_services.fixity_check_create(
            package_uuid=package.uuid,
            requested_by=user.get_username(),
            audit_entry=AuditEntry.objects.filter(idempotency_key=idempotency_key).first(),
        )
        created.append(check.pk)
        return UpstreamAnswer(
            _("Queued; the result appears here and in the fixity history when it is done."),
            status=None,
            queued=True,
        )

    return _perform(
        user=user,
        permission=OPERATE_PERMISSION,
        action="package_fixity_check",
        package=package,
        idempotency_key=idempotency_key,
        call=call,
        after_success=lambda: run_check(created[0]),
    )


# --------------------------------------------------------------------------- download


def package_download(
    *, user: User, package: StoragePackage, idempotency_key: str
) -> tuple[ActionResult, storage_services.OpenDownload | None]:
    """Open the package's download; the caller streams and closes it."""
    opened: list[storage_services.OpenDownload] = []

    def call() -> UpstreamAnswer:
        _offered(package, "download")
        download = storage_services.package_download_open(uuid=package.uuid)
        opened.append(download)
        size = download.download.size
        shown = f", {size} bytes" if size is not None else ""
        return UpstreamAnswer(f"Download started: {download.download.filename}{shown}.")

    result = _perform(
        user=user,
        permission=OPERATE_PERMISSION,
        action="package_download",
        package=package,
        idempotency_key=idempotency_key,
        call=call,
        after_success=None,
    )
    return result, (opened[0] if opened else None)


# --------------------------------------------------------------------------- requests


def _requester(user: User) -> tuple[int, str]:
    user_id = getattr(user, "pk", None)
    email = (getattr(user, "email", "") or "").strip()
    if not isinstance(user_id, int) or user_id <= 0:
        raise ActionNotPossible(_("Your account has no numeric id the storage service accepts."))
    if not email:
        raise ActionNotPossible(
            _(
                "Your Lookout account has no e-mail address, and the storage service needs one "
                "to record who asked. Ask an administrator to add it."
            )
        )
    return user_id, email


def package_request(
    *,
    kind: Literal["deletion", "recovery"],
    user: User,
    package: StoragePackage,
    pipeline_uuid: str,
    reason: str,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    """Ask the storage service to delete or recover a package; its administrators decide."""
    reason = reason.strip()

    def call() -> UpstreamAnswer:
        _offered(package, "delete" if kind == "deletion" else "recover")
        if not reason:
            raise ActionNotPossible(_("A reason is required."))
        user_id, email = _requester(user)
        client = storage_services.get_storage_client()
        send = client.request_deletion if kind == "deletion" else client.request_recovery
        receipt = send(
            package.uuid,
            pipeline_uuid=pipeline_uuid,
            reason=reason,
            user_id=user_id,
            user_email=email,
        )
        _refresh(package.uuid)
        if receipt.already_requested:
            # Not an error: the request the user wants is already waiting.
            return UpstreamAnswer(receipt.message or _already_requested(kind), status=200)
        return UpstreamAnswer(
            _(
                "%(message)s (request %(request)s). The storage service's "
                "administrators approve or reject it."
            )
            % {"message": receipt.message, "request": receipt.request_id},
            status=202,
        )

    return _perform(
        user=user,
        permission=DELETION_PERMISSION,
        action=f"package_{kind}_request",
        package=package,
        idempotency_key=idempotency_key,
        call=call,
        parameters={
            "reason": reason,
            "pipeline": pipeline_uuid,
            "user_id": getattr(user, "pk", None),
            "user_email": getattr(user, "email", ""),
        },
        after_success=after_success,
    )


# --------------------------------------------------------------------------- reingest


def package_reingest(
    *,
    user: User,
    package: StoragePackage,
    pipeline_uuid: str,
    reingest_type: str,
    processing_config: str,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    def call() -> UpstreamAnswer:
        _offered(package, "reingest")
        try:
            kind = ReingestType(reingest_type)
        except ValueError:
            raise ActionNotPossible(
                _("Unknown reingest type “%(reingest_type)s”.") % {"reingest_type": reingest_type}
            ) from None
        receipt = storage_services.get_storage_client().reingest(
            package.uuid,
            pipeline_uuid=pipeline_uuid,
            reingest_type=kind,
            processing_config=processing_config or None,
        )
        _refresh(package.uuid)
        return UpstreamAnswer(f"{receipt.message} (reingest {receipt.reingest_uuid}).", status=202)

    return _perform(
        user=user,
        permission=REINGEST_PERMISSION,
        action="package_reingest",
        package=package,
        idempotency_key=idempotency_key,
        call=call,
        parameters={
            "pipeline": pipeline_uuid,
            "reingest_type": reingest_type,
            "processing_config": processing_config,
        },
        after_success=after_success,
    )


# --------------------------------------------------------------------------- move


def package_move(
    *,
    user: User,
    package: StoragePackage,
    location_uuid: str,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    def call() -> UpstreamAnswer:
        _offered(package, "move")
        allowed = {loc.uuid: loc for loc in storage_selectors.move_destinations(package=package)}
        destination = allowed.get(location_uuid)
        if destination is None:
            raise ActionNotPossible(
                _(
                    "That location is not an enabled location with the same purpose as the "
                    "package's current one."
                )
            )
        storage_services.get_storage_client().move_package(
            package.uuid, location_uuid=location_uuid
        )
        _refresh(package.uuid)
        # 202: the service moves it in the background; the package page says when it is done.
        return UpstreamAnswer(f"Moving to {destination.label}.", status=202)

    return _perform(
        user=user,
        permission=OPERATE_PERMISSION,
        action="package_move",
        package=package,
        idempotency_key=idempotency_key,
        call=call,
        parameters={"from": package.current_location_uuid, "to": location_uuid},
        after_success=after_success,
    )
