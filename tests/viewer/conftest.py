"""Fixtures of the viewer tests: headless Chromium, as the report tests drive it."""

from tests.report._chromium import chromium  # noqa: F401 (fixture)
