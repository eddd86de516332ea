"""What Lookout keeps in its own database: the history of status changes.

The current state of every unit lives in the cache (see `dashboard.state`); these
rows are the durable record that throughput and time per stage are computed from.
"""

from __future__ import annotations

from django.db import models


class UnitKind(models.TextChoices):
    TRANSFER = "transfer", "Transfer"
    SIP = "sip", "SIP"


class StatusChange(models.Model):
    """One row per real change of a unit's status or current microservice."""

    pipeline = models.CharField(max_length=40)
    unit_uuid = models.UUIDField()
    unit_kind = models.CharField(max_length=10, choices=UnitKind.choices)
    unit_name = models.CharField(max_length=255, blank=True)
    from_status = models.CharField(max_length=20, blank=True)
    to_status = models.CharField(max_length=20)
    microservice = models.CharField(max_length=255, blank=True)
    at = models.DateTimeField()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["pipeline", "unit_uuid", "-at"], name="statuschange_unit"),
            models.Index(fields=["pipeline", "to_status", "at"], name="statuschange_status"),
        ]

    def __str__(self) -> str:
        return f"{self.unit_uuid}: {self.from_status or '-'} -> {self.to_status} at {self.at}"
