"""Fixtures of the viewer tests: headless Chromium, as the report tests drive it, and a
PostgreSQL store as the store tests have one."""

from tests.gaps.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)
from tests.report._chromium import chromium  # noqa: F401 (fixture)
