"""How a row names a prompt the vendor holds rather than a template file.

Its own module so that what reads the sentinel (the stability triple, a contract's
lint) does not import the gap row's model with it (ADR 0050).
"""

from __future__ import annotations

import re

# The endpoint may itself contain colons or slashes (``vendor-managed:openai:/v1/evals``)
# but never whitespace.
VENDOR_MANAGED_PREFIX = "vendor-managed:"
"""The start of a prompt_sha that names a vendor's prompt: vendor-managed:<vendor>:<endpoint>."""

VENDOR_MANAGED = re.compile(r"vendor-managed:[a-z0-9][a-z0-9_.-]*:\S+")
"""A whole vendor-managed prompt_sha."""
