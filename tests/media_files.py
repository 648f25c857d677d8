"""Media files made by the tests: images written by Pillow, short videos by PyAV, nothing committed.

`image(fmt, size)` is a JPEG, PNG or GIF of `size` pixels; `rotated_jpeg(size, orientation)` a JPEG
whose EXIF says to turn it (6: a quarter clockwise, so it is displayed with its sides swapped);
`video(fmt, size, seconds)` a clip in one of the accepted containers (MP4 and MOV with H.264, AVI
and FLV with MPEG-4 part 2, WMV with WMV2, WebM with VP8). `executable()` is the start of an ELF
binary. Everything is cached per process: each file is made once.
"""

from __future__ import annotations

import functools
import io
from fractions import Fraction

import av
from PIL import Image

# (muxer, codec, pixel format) per accepted video extension.
_VIDEO_ENCODINGS = {
    "mp4": ("mp4", "libx264", "yuv420p"),
    "mov": ("mov", "libx264", "yuv420p"),
    "avi": ("avi", "mpeg4", "yuv420p"),
    "flv": ("flv", "flv", "yuv420p"),
    "wmv": ("asf", "wmv2", "yuv420p"),
    "webm": ("webm", "libvpx", "yuv420p"),
}
_PIL_FORMATS = {"jpg": "JPEG", "jpeg": "JPEG", "png": "PNG", "gif": "GIF"}
EXIF_ORIENTATION = 0x0112


@functools.cache
def image(fmt: str = "png", size: tuple[int, int] = (64, 48)) -> bytes:
    """An image of `size` (width, height) in `fmt` (`jpg`, `png` or `gif`): a gradient, so it compresses
    like a photo rather than to nothing."""
    width, height = size
    picture = Image.new("RGB", size)
    picture.putdata([(x * 255 // width, y * 255 // height, 128) for y in range(height) for x in range(width)])
    out = io.BytesIO()
    picture.save(out, format=_PIL_FORMATS[fmt])
    return out.getvalue()


@functools.cache
def rotated_jpeg(size: tuple[int, int] = (64, 48), orientation: int = 6) -> bytes:
    """A JPEG stored `size` (width, height) whose EXIF orientation is `orientation`."""
    picture = Image.new("RGB", size, (200, 30, 30))
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = orientation
    out = io.BytesIO()
    picture.save(out, format="JPEG", exif=exif.tobytes())
    return out.getvalue()


@functools.cache
def video(fmt: str = "mp4", size: tuple[int, int] = (64, 48), seconds: float = 1.0, fps: int = 10) -> bytes:
    """A clip of `seconds` at `fps` frames a second, `size` pixels, in `fmt` (an accepted extension)."""
    muxer, codec, pixel_format = _VIDEO_ENCODINGS[fmt]
    width, height = size
    out = io.BytesIO()
    with av.open(out, mode="w", format=muxer) as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, pixel_format
        stream.time_base = Fraction(1, fps)
        for index in range(round(seconds * fps)):
            shade = (index * 20) % 256
            frame = av.VideoFrame.from_image(Image.new("RGB", size, (shade, 255 - shade, 90)))
            frame.pts = index
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


def audio_only_m4a() -> bytes:
    """An M4A (AAC in MP4) of half a second of silence: an MP4 container without video."""
    out = io.BytesIO()
    with av.open(out, mode="w", format="ipod") as container:
        stream = container.add_stream("aac", rate=22050)
        frame = av.AudioFrame(format="fltp", layout="mono", samples=11025)
        frame.planes[0].update(bytes(frame.planes[0].buffer_size))
        frame.sample_rate = 22050
        frame.pts = 0
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


def executable() -> bytes:
    """The first bytes of an ELF executable (what a renamed program starts with)."""
    return b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00" + b"\x00" * 200
