"""The configured pipelines, as typed values (see config/pipelines.py for loading)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class PipelineConfig:
    slug: str
    name: str
    url: str
    user: str
    key: str
    # Where the service's naive task times are read (its server's local time zone).
    time_zone: str = "UTC"
    # The service's own web UI, for the decisions its API cannot answer ("" = `url`).
    ui_url: str = ""
    # Processing configuration names offered when starting a transfer.
    processing_configs: tuple[str, ...] = ("default", "automated")
    # The optional service account on the service's own dashboard ("" = API only).
    dashboard_user: str = ""
    dashboard_password: str = ""

    def __post_init__(self) -> None:
        # Settings hold lists (JSON); keep the value hashable and read-only.
        object.__setattr__(self, "processing_configs", tuple(self.processing_configs))
        if not self.ui_url:
            object.__setattr__(self, "ui_url", self.url)

    def unit_ui_url(self, *, kind: str, uuid: str) -> str:
        """The unit's page in the service's own dashboard (`/transfer/<uuid>/` or
        `/ingest/<uuid>/`), where the task output the API does not give is shown."""
        base = (self.ui_url or self.url).rstrip("/")
        return f"{base}/{'ingest' if kind == 'sip' else 'transfer'}/{uuid}/"

    def __repr__(self) -> str:  # keep the key out of logs and tracebacks
        return f"PipelineConfig(slug={self.slug!r}, url={self.url!r})"

    @property
    def full_view(self) -> bool:
        """Has a dashboard account: every unit is discovered, not only the API's lists."""
        return bool(self.dashboard_user and self.dashboard_password)

    def client_config(self) -> dict[str, str]:
        """The mapping `get_workflow_client` takes."""
        return {
            "slug": self.slug,
            "name": self.name,
            "url": self.url,
            "user": self.user,
            "key": self.key,
        }


def pipeline_list() -> list[PipelineConfig]:
    return [PipelineConfig(**entry) for entry in settings.LOOKOUT_PIPELINES]


def pipeline_get(slug: str) -> PipelineConfig | None:
    return next((p for p in pipeline_list() if p.slug == slug), None)
