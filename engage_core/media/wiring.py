"""The media library's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.jobs.runner import Handler
from engage_core.media.service import SWEEP_JOB, MediaService
from engage_core.media.sweep import sweep_job
from engage_core.plans.entitlements import Entitlements

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class MediaServices:
    """The media area's service: the library of images and videos."""

    media: MediaService
    entitlements: Entitlements  # wired by the plans area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.media = MediaService(deps.uow, deps.clock, deps.blobs, deps.media_prober, self.entitlements)

    def job_handlers(self) -> dict[str, Handler]:
        """The sweep job's handler, by kind."""
        return {SWEEP_JOB: sweep_job(self.media)}
