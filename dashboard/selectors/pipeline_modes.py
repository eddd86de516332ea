"""Reads: how much of each pipeline Lookout can see (its mode), for the overview, the
wall and the API.

"Full view": a service account on the workflow service's own dashboard lists every unit.
"API only": the public API's lists, which show no running or failed unit that was started
elsewhere with automatic approval.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from dashboard.lib import dashboard_source
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors.freshness import ServiceHealth, service_health_list

FULL_VIEW = "full_view"
API_ONLY = "api_only"
API_ONLY_NOTE = _(
    "units started elsewhere with automatic approval, and their failures, are not seen"
)


@dataclass(frozen=True)
class PipelineMode:
    slug: str
    name: str
    mode: str  # FULL_VIEW or API_ONLY
    # The service account was refused at its last sign-in (units seen by the API only).
    refused: bool

    @property
    def full_view(self) -> bool:
        return self.mode == FULL_VIEW

    @property
    def label(self) -> Promise:
        return _("full view") if self.full_view else _("API only")


@dataclass(frozen=True)
class Modes:
    pipelines: tuple[PipelineMode, ...]

    @property
    def api_only(self) -> tuple[PipelineMode, ...]:
        return tuple(p for p in self.pipelines if not p.full_view)

    @property
    def refused(self) -> tuple[PipelineMode, ...]:
        return tuple(p for p in self.pipelines if p.refused)

    @property
    def mixed(self) -> bool:
        """Some pipelines in each mode: the line then names the API-only ones."""
        return 0 < len(self.api_only) < len(self.pipelines)

    @property
    def api_only_note(self) -> Promise:
        return API_ONLY_NOTE

    @property
    def api_only_names(self) -> str:
        return ", ".join(p.name for p in self.api_only)

    def of(self, slug: str) -> PipelineMode | None:
        return next((p for p in self.pipelines if p.slug == slug), None)


def pipeline_modes(*, health: list[ServiceHealth] | None = None) -> Modes:
    by_service = {h.service: h for h in (health if health is not None else service_health_list())}
    modes = []
    for pipeline in pipeline_list():
        lists = by_service.get(dashboard_source.dashboard_service(pipeline.slug))
        modes.append(
            PipelineMode(
                slug=pipeline.slug,
                name=pipeline.name,
                mode=FULL_VIEW if pipeline.full_view else API_ONLY,
                refused=bool(lists and lists.refused),
            )
        )
    return Modes(pipelines=tuple(modes))
