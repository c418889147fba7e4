"""The quick reproduction site as a reader sees it, in headless Chromium: every figure loads,
the console has no errors, and a screenshot of each page is kept beside it in the site folder.
And the check can fail: a figure whose file is gone, or whose embedded data is broken."""

from __future__ import annotations

import base64
import re
import shutil
import struct
from pathlib import Path

import pytest
from browser import chromium, render

from rampup.experiments.site import PaperRun

pytestmark = pytest.mark.skipif(chromium() is None, reason="no chromium on PATH (scripts/test.sh installs it)")

WIDTH = 1280


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's (width, height), from its IHDR chunk (the first, right after the signature)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_the_index_renders_without_errors(quick_site: tuple[Path, Path, list[PaperRun]]) -> None:
    _, page, _ = quick_site
    shot = page.with_suffix(".png")
    r = render(page, shot, WIDTH)
    assert r.errors == []
    # The index is text, its tables and links, and one figure of each paper's report, each loaded.
    assert len(r.images) == len(quick_site[2]) and all(loaded for _, loaded in r.images), r.images
    width, height = png_size(shot)
    assert width == WIDTH and height >= 800, (width, height)


def test_a_report_renders_with_every_figure_and_without_errors(quick_site: tuple[Path, Path, list[PaperRun]]) -> None:
    page = quick_site[1].parent / "rbp" / "report.html"
    shot = page.with_suffix(".png")
    r = render(page, shot, WIDTH)
    assert r.errors == []
    # Every figure of the report (report.md shows each by its file) is an image on the page, and loaded.
    figures = re.findall(r"^!\[[^\]]*\]\(([^)]+\.png)\)$", page.with_suffix(".md").read_text(encoding="utf-8"), re.M)
    assert figures and len(r.images) == len(figures)
    assert [src for src, ok in r.images if not ok] == []
    # The screenshot is the whole page: as wide as the window unless something sticks out sideways.
    width, height = png_size(shot)
    assert width == WIDTH, f"{page} is {width} px wide in a {WIDTH} px window: something overflows sideways (see {shot})"
    assert height > 400 * len(figures), height  # each figure is some 500 px tall
    assert shot.stat().st_size > 20_000


def test_a_missing_figure_is_caught(quick_site: tuple[Path, Path, list[PaperRun]], tmp_path: Path) -> None:
    # report.html embeds its figures (data: addresses), so deleting a figure's file alone changes
    # nothing there. Point one figure at its file, as report.md does, and delete the file.
    folder = shutil.copytree(quick_site[1].parent / "rbp", tmp_path / "rbp")
    page = folder / "report.html"
    text = page.read_text(encoding="utf-8")
    m = re.search(r"<img src='(data:image/png;base64,[^']*)' alt='([^']+\.png)'>", text)
    assert m, "no embedded figure in the report"
    data, name = m.groups()
    page.write_text(text.replace(data, name, 1), encoding="utf-8")
    (folder / name).unlink()
    r = render(page, tmp_path / "report.png", WIDTH)
    assert [src for src, ok in r.images if not ok] == [name]
    assert len(r.errors) == 1 and "ERR_FILE_NOT_FOUND" in r.errors[0] and name in r.errors[0], r.errors


def test_a_broken_embedded_figure_is_caught(quick_site: tuple[Path, Path, list[PaperRun]], tmp_path: Path) -> None:
    # An embedded figure whose data is not a picture shows as not loaded; the browser logs no
    # error for it, so only the images check sees it. (A PNG cut short after its header still
    # has a size, so it counts as loaded: the check is "decoded", not "every pixel there".)
    page = tmp_path / "report.html"
    text = (quick_site[1].parent / "rbp" / "report.html").read_text(encoding="utf-8")
    m = re.search(r"<img src='data:image/png;base64,([^']*)'", text)
    assert m, "no embedded figure in the report"
    page.write_text(text.replace(m.group(1), base64.b64encode(b"not a picture").decode(), 1), encoding="utf-8")
    r = render(page, tmp_path / "report.png", WIDTH)
    assert [ok for _, ok in r.images] == [False] + [True] * (len(r.images) - 1)
    assert r.errors == []
