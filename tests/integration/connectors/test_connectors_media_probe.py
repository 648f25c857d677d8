"""Checking media uploads with Pillow and PyAV: every accepted format read from its bytes, sizes as
displayed (EXIF orientation applied), video durations, and refusals of what is not what it claims."""

from __future__ import annotations

import io

import pytest
from media_files import audio_only_m4a, image, rotated_jpeg, video

from engage_connectors.media_probe import PillowAvMediaProber
from engage_core.media.formats import GIF, MP4, PNG, sniff
from engage_core.media.model import MediaProbe
from engage_core.media.ports import ProbeFailed

prober = PillowAvMediaProber()


def _probe(data: bytes) -> MediaProbe:
    media_format = sniff(data[:64])
    assert media_format is not None
    return prober.probe(io.BytesIO(data), media_format)


@pytest.mark.parametrize("fmt", ["jpg", "png", "gif"])
def test_an_image_has_its_width_and_height(fmt: str) -> None:
    """Each image format opens and gives its size in pixels, and no duration."""
    assert _probe(image(fmt, (120, 80))) == MediaProbe(120, 80)


@pytest.mark.parametrize(("orientation", "size"), [(1, (64, 48)), (3, (64, 48)), (6, (48, 64)), (8, (48, 64))])
def test_exif_orientation_turns_the_size(orientation: int, size: tuple[int, int]) -> None:
    """A JPEG turned a quarter by its EXIF orientation (6, 8) has its sides swapped; a half turn (3) not."""
    probed = _probe(rotated_jpeg((64, 48), orientation))
    assert (probed.width, probed.height) == size


@pytest.mark.parametrize("fmt", ["mp4", "mov", "avi", "flv", "wmv", "webm"])
def test_a_video_has_its_size_and_duration(fmt: str) -> None:
    """Each video container parses with its own demuxer and gives the frame size and the length."""
    probed = _probe(video(fmt, (96, 64), 1.5))
    assert (probed.width, probed.height) == (96, 64)
    assert probed.duration_seconds == pytest.approx(1.5, abs=0.15)


def test_an_mp4_without_video_is_refused() -> None:
    """Audio alone in an MP4 container (brand `isom`) holds no video stream."""
    data = audio_only_m4a().replace(b"M4A ", b"isom", 1)
    with pytest.raises(ProbeFailed, match="holds no video"):
        prober.probe(io.BytesIO(data), MP4)


def test_a_truncated_video_is_refused() -> None:
    """The first 300 bytes of an MP4 do not parse."""
    with pytest.raises(ProbeFailed, match="not a readable MP4 file"):
        prober.probe(io.BytesIO(video("mp4")[:300]), MP4)


def test_a_png_signature_on_garbage_is_refused() -> None:
    """The PNG signature followed by anything but PNG chunks is not a PNG."""
    with pytest.raises(ProbeFailed, match="not a readable PNG file"):
        prober.probe(io.BytesIO(b"\x89PNG\r\n\x1a\n" + b"x" * 100), PNG)


def test_an_image_claiming_too_many_pixels_is_refused() -> None:
    """A small GIF whose header claims 30,000 x 30,000 pixels is a decompression bomb."""
    data = bytearray(image("gif", (10, 10)))
    data[6:10] = (30_000).to_bytes(2, "little") * 2  # the logical screen's width and height
    with pytest.raises(ProbeFailed, match="too many pixels"):
        prober.probe(io.BytesIO(bytes(data)), GIF)
