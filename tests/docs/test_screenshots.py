"""docs/screenshots.py makes the viewer's screenshots the docs show: each one a real page.

The script runs the bundled examples into a temporary store, serves it with ``verifier
view`` and photographs every page in headless Chromium (two runs with a fold open),
then the playground of ``verifier serve`` with a case tried; here it writes them to a
temporary folder, and each PNG must have the fixed viewport's size and be a page, not
a blank or an error: many colours (text, marks, banners, links).
"""

from __future__ import annotations

import base64
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.report._chromium import chromium, chromium_executable

pytestmark = pytest.mark.e2e

__all__ = ["chromium"]  # the fixture, used below

SHOTS = (
    "viewer-runs.png",
    "viewer-run.png",
    "viewer-run-citation-fold.png",
    "viewer-run-judge-fold.png",
    "viewer-case.png",
    "viewer-panel.png",
    "viewer-diff.png",
    "viewer-grid.png",
    "viewer-trends.png",
)
PLAYGROUND = "playground.png"
"""The playground's whole page (its verdicts come below the viewport)."""
COLOURS = """async (src) => {
  const image = new Image();
  image.src = src;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const drawing = canvas.getContext("2d");
  drawing.drawImage(image, 0, 0);
  const pixels = drawing.getImageData(0, 0, image.width, image.height).data;
  const seen = new Set();
  for (let i = 0; i < pixels.length; i += 4) {
    seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
  }
  return seen.size;
}"""


def _size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _colours(browser: Any, png: bytes) -> int:
    """How many distinct colours the picture has, counted by the browser's canvas."""
    context = browser.new_context()
    try:
        page = context.new_page()
        src = "data:image/png;base64," + base64.b64encode(png).decode()
        return int(page.evaluate(COLOURS, src))
    finally:
        context.close()


def test_the_script_photographs_every_page_of_the_viewer_and_the_playground(
    chromium: Any, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "screenshots.py"), "--out", str(tmp_path)],
        env=os.environ | {"VERIFIER_TEST_CHROMIUM": chromium_executable()},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*SHOTS, PLAYGROUND])
    assert done.stdout.split() == [str(tmp_path / name) for name in (*SHOTS, PLAYGROUND)]
    for name in SHOTS:
        png = (tmp_path / name).read_bytes()
        assert _size(png) == (1200, 900), name
        # A blank page has one colour, an error page a handful; the viewer's, hundreds.
        assert _colours(chromium, png) > 64, name
    played = (tmp_path / PLAYGROUND).read_bytes()
    width, height = _size(played)
    assert width == 1200 and height > 900
    assert _colours(chromium, played) > 64
