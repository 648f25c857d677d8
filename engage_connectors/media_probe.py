"""Checking media uploads with real decoders: Pillow for images, PyAV (FFmpeg) for videos. Needs the
`media` extra (`pillow`, `av`).

An image is opened by Pillow with the one plugin its signature names (`formats=`), so no other
decoder is ever tried on it; reading the header is the check, and gives the size. A photo whose EXIF
orientation turns it a quarter (5 to 8) is displayed with its sides swapped, so its width and height
are given swapped. Pixels are never decoded: a 50 MB upload costs a header read. An image claiming
more pixels than Pillow's decompression-bomb limit is refused.

A video is opened by PyAV with the demuxer its signature names (`MediaFormat.demuxer`): the demuxer
parses the container, which is the check, and it must hold a video stream (a cover picture does not
count). Width and height are the stream's coded size; the duration is the container's (or the
stream's) declared one.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import BinaryIO

import av
import av.container
from PIL import Image, UnidentifiedImageError

from engage_core.media.formats import IMAGE, MediaFormat
from engage_core.media.model import MediaProbe
from engage_core.media.ports import ProbeFailed

EXIF_ORIENTATION = 0x0112
QUARTER_TURNS = frozenset({5, 6, 7, 8})
"""EXIF orientations that turn the picture by 90 or 270 degrees (with or without a mirror)."""

_PIL_FORMATS: Mapping[str, str] = {"jpg": "JPEG", "png": "PNG", "gif": "GIF"}


class PillowAvMediaProber:
    """The :class:`.MediaProber` of `engage serve`: Pillow for images, PyAV for videos."""

    def probe(self, source: BinaryIO, media_format: MediaFormat) -> MediaProbe:
        """The displayed size (and a video's duration); ProbeFailed when the decoder refuses it."""
        if media_format.file_type == IMAGE:
            return probe_image(source, media_format)
        return probe_video(source, media_format)


def _unreadable(media_format: MediaFormat) -> ProbeFailed:
    return ProbeFailed(f"The file is not a readable {media_format.extension.upper()} file.")


def probe_image(source: BinaryIO, media_format: MediaFormat) -> MediaProbe:
    """Width and height as displayed (EXIF orientation applied)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(source, formats=[_PIL_FORMATS[media_format.extension]]) as picture:
                width, height = picture.size
                orientation = picture.getexif().get(EXIF_ORIENTATION)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ProbeFailed("The image has too many pixels.") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise _unreadable(media_format) from exc
    if width <= 0 or height <= 0:
        raise _unreadable(media_format)
    if orientation in QUARTER_TURNS:
        width, height = height, width
    return MediaProbe(width, height)


def probe_video(source: BinaryIO, media_format: MediaFormat) -> MediaProbe:
    """Width, height and duration of the first video stream."""
    try:
        opened = av.open(source, mode="r", format=media_format.demuxer)
    except (av.FFmpegError, ValueError, OSError, EOFError) as exc:
        raise _unreadable(media_format) from exc
    try:
        return _measure(opened, media_format)
    finally:
        opened.close()


def _measure(opened: av.container.InputContainer, media_format: MediaFormat) -> MediaProbe:
    streams = [s for s in opened.streams.video if not s.disposition & av.stream.Disposition.attached_pic]
    if not streams:
        raise ProbeFailed(f"The {media_format.extension.upper()} file holds no video.")
    stream = streams[0]
    width, height = stream.codec_context.width, stream.codec_context.height
    if not width or not height:
        raise _unreadable(media_format)
    duration: float | None = None
    if opened.duration is not None and opened.duration > 0:
        duration = opened.duration / av.time_base
    elif stream.duration is not None and stream.time_base is not None:
        duration = float(stream.duration * stream.time_base)
    return MediaProbe(width, height, duration)
