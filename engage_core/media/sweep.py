"""The sweep job (`media.sweep`): removes the stored objects whose removal record fell due (see
`engage_core.media.service` for why they exist). One is queued per account at a time; a run that
leaves records not yet due defers itself to the earliest of them (a deferral counts no attempt)."""

from __future__ import annotations

from engage_core.jobs.model import RetryLater
from engage_core.jobs.runner import Handler, JobContext
from engage_core.media.service import SWEEP_JOB, MediaService

__all__ = ["SWEEP_JOB", "sweep_job"]


def sweep_job(media: MediaService) -> Handler:
    """The handler of `SWEEP_JOB` over `media`."""

    def run(context: JobContext) -> None:
        wait = media.sweep(context.account_id)
        if wait is not None:
            raise RetryLater(max(wait.total_seconds(), 1.0), "Waiting for the next removal to fall due.")

    return run
