"""The media library's rules: sizes for people, display names, original names, filters, metadata."""

from __future__ import annotations

import pytest

from engage_core.kernel.errors import ValidationFailed
from engage_core.media.model import MediaFilter, MediaProbe, check_filter, clean_name, formatted_size, original_name_of


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0 B"),
        (532, "532 B"),
        (1023, "1023 B"),
        (1024, "1 KB"),
        (1536, "1.5 KB"),
        (2_621_440, "2.5 MB"),
        (50 * 1024 * 1024, "50 MB"),
        (1_234_567, "1.18 MB"),
        (3 * 1024**3, "3 GB"),
    ],
)
def test_a_size_is_formatted_in_steps_of_1024(size: int, expected: str) -> None:
    """Bytes below 1 KB, then at most two decimals without trailing zeros."""
    assert formatted_size(size) == expected


def test_a_display_name_is_trimmed() -> None:
    """Surrounding spaces go."""
    assert clean_name("  Spring banner ") == "Spring banner"


@pytest.mark.parametrize("name", ["", "   ", "x" * 256, "tab\there"])
def test_a_bad_display_name_is_refused(name: str) -> None:
    """Blank, over 255 characters, or with control characters: a 422 on `name`."""
    with pytest.raises(ValidationFailed) as refused:
        clean_name(name)
    assert list(refused.value.errors) == ["name"]


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("logo.png", "logo.png"),
        ("C:\\fakepath\\IMG_0042.jpg", "IMG_0042.jpg"),
        ("../../etc/passwd", "passwd"),
        ("", "upload.png"),
        ("bad\x00name.png", "badname.png"),
    ],
)
def test_the_original_name_is_the_last_path_segment(filename: str, expected: str) -> None:
    """Directories and control characters are dropped; a nameless upload gets `upload.<ext>`."""
    assert original_name_of(filename, "png") == expected


def test_a_long_original_name_keeps_its_extension() -> None:
    """A 300-character name is cut to 255 characters, ending in its extension."""
    kept = original_name_of("a" * 300 + ".jpeg", "jpg")
    assert (len(kept), kept.endswith(".jpeg")) == (255, True)


def test_the_filter_drops_a_blank_search_and_refuses_a_type() -> None:
    """A blank search is no search; `audio` is no type."""
    assert check_filter(MediaFilter(search="  ")) == MediaFilter()
    with pytest.raises(ValidationFailed, match="invalid"):
        check_filter(MediaFilter(type="audio"))


def test_metadata_has_a_duration_for_videos_only() -> None:
    """Images carry width and height; videos also their duration, in seconds to the millisecond."""
    probe = MediaProbe(1280, 720, 12.34567)
    assert (probe.metadata("image"), probe.metadata("video"), MediaProbe().metadata("image")) == (
        {"width": 1280, "height": 720},
        {"width": 1280, "height": 720, "duration": 12.346},
        None,
    )
