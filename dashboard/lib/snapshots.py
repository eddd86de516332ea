"""The cached picture of one unit, as the pollers last saw it.

Stored in the cache as plain dicts (not pickled classes) so a change to this class
never makes old cache entries unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from dashboard.lib import vocabulary

FINAL_STATUSES = frozenset({"COMPLETE", "FAILED", "REJECTED"})
# A unit that exists upstream but has no jobs yet ("unable to determine its status").
PENDING = "PENDING"
# A unit seen in a list but whose status has not been fetched yet.
UNKNOWN = "UNKNOWN"


@dataclass
class UnitSnapshot:
    pipeline: str
    uuid: str
    kind: str  # "transfer", "sip", or "" until the first status call tells
    first_seen_at: datetime
    updated_at: datetime
    name: str = ""
    status: str = UNKNOWN
    microservice: str = ""
    path: str = ""
    directory: str = ""
    transfer_type: str = ""
    sip_uuid: str | None = None
    transfer_uuid: str | None = None
    sent_to_backlog: bool = False
    awaiting_sip_uuid: bool = False
    awaiting_approval: bool = False
    awaiting_decision: bool = False
    decision: str = ""
    waiting_since: datetime | None = None
    hidden: bool = False
    last_polled_at: datetime | None = None
    next_poll_at: datetime | None = None
    poll_error: str = ""
    missing_count: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES and not self.awaiting_sip_uuid

    @property
    def status_label(self) -> str:
        return vocabulary.unit_status(self.status, sent_to_backlog=self.sent_to_backlog).text

    def to_dict(self) -> dict[str, Any]:
        # Shallow on purpose: dataclasses.asdict deep-copies, the poller's main cost at scale.
        data = {name: getattr(self, name) for name in _FIELD_NAMES}
        data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UnitSnapshot:
        return cls(**{k: v for k, v in data.items() if k in _FIELD_NAMES})


# Read once: from_dict runs for every unit on every page.
_FIELD_NAMES = frozenset(f.name for f in fields(UnitSnapshot))
