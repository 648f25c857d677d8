"""The media library as a state machine over the fakes: uploads, renames and deletes mixed with the
crashes that can interrupt them (after an upload stored its object, after a delete committed while
the store could not remove the object), time passing and the worker running the sweep, in any
order. After every step no file has lost its object, and every object without a row has a removal
record and a queued sweep job to find it; once the grace has passed and the worker has run, the
store holds exactly the objects of the rows."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engage_core.jobs.runner import JobRunner
from engage_core.kernel.pagination import PageRequest
from engage_core.media.model import MediaFilter, MediaUpload
from engage_core.media.service import SWEEP_JOB, SWEEP_KEY, UPLOAD_GRACE
from engage_core.services import Services
from engage_core.testing import (
    FakeClock,
    FakeMediaProber,
    InMemoryBlobStore,
    InMemoryJobQueue,
    InMemoryUnitOfWorkFactory,
)

from ..factories import START

ALL = MediaFilter()
EVERYTHING = PageRequest(1, 100)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(100)
MP4 = b"\x00\x00\x00\x18ftypisom" + bytes(100)


class MediaLibrary(RuleBasedStateMachine):
    """One workspace's library, its blob store and its worker."""

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.blobs = InMemoryBlobStore()
        self.services = Services.build(self.uow, self.clock, blobs=self.blobs, media_prober=FakeMediaProber())
        self.account = self.services.accounts.create("Acme").account.id
        self.runner = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)
        self.media = self.services.media

    # -- what happens ------------------------------------------------------------------------------

    @rule(video=st.booleans(), name=st.sampled_from([None, "Banner", "Intro"]))
    def upload(self, video: bool, name: str | None) -> None:
        data = MP4 if video else PNG
        self.media.upload(self.account, MediaUpload("clip.mp4" if video else "logo.png", [data], name))

    @rule()
    def upload_crashes_after_storing(self) -> None:
        """The process dies between storing the object and adding its row."""
        self.media.stage(self.account, "lost.png", [PNG])  # neither published nor discarded

    @precondition(lambda self: self._ids())
    @rule(data=st.data())
    def rename(self, data: st.DataObject) -> None:
        self.media.rename(self.account, data.draw(st.sampled_from(self._ids())), "Renamed")

    @precondition(lambda self: self._ids())
    @rule(data=st.data(), store_answers=st.booleans())
    def delete(self, data: st.DataObject, store_answers: bool) -> None:
        """A delete; when the store does not answer, the object stays behind its committed deletion (as
        after a crash right after the commit)."""
        if not store_answers:
            self.blobs.fail_deletes()
        try:
            self.media.delete(self.account, data.draw(st.sampled_from(self._ids())))
        finally:
            self.blobs.recover()

    @rule(minutes=st.integers(min_value=1, max_value=90))
    def time_passes(self, minutes: int) -> None:
        self.clock.advance(minutes=minutes)

    @rule()
    def worker_runs(self) -> None:
        for _ in range(10):
            if not self.runner.run_once():
                break

    # -- what always holds ---------------------------------------------------------------------------

    @invariant()
    def every_file_has_its_object(self) -> None:
        missing = [key for key in self._row_keys() if key not in self.blobs.objects]
        assert missing == []

    @invariant()
    def every_other_object_is_recorded_for_removal_and_a_sweep_is_queued(self) -> None:
        strays = set(self.blobs.objects) - set(self._row_keys())
        with self.uow.workspace(self.account, readonly=True) as unit:
            recorded = set(unit.blob_removals.due(self.clock.now() + UPLOAD_GRACE * 2, 1000))
            sweep = unit.jobs.find(SWEEP_JOB, SWEEP_KEY)
        assert strays <= recorded
        if recorded:
            assert sweep is not None and not sweep.finished

    def teardown(self) -> None:
        if not hasattr(self, "clock"):
            return
        self.clock.advance(seconds=UPLOAD_GRACE.total_seconds())
        self.worker_runs()
        assert set(self.blobs.objects) == set(self._row_keys())

    # -- helpers -------------------------------------------------------------------------------------

    def _rows(self) -> list[tuple[int, str]]:
        with self.uow.workspace(self.account, readonly=True) as unit:
            return [(m.id, m.storage_key) for m in unit.media.find(ALL, EVERYTHING).items]

    def _ids(self) -> list[int]:
        return [media_id for media_id, _ in self._rows()]

    def _row_keys(self) -> list[str]:
        return [key for _, key in self._rows()]


MediaLibrary.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
TestMediaLibrary = MediaLibrary.TestCase
