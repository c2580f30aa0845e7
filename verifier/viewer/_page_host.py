"""What the diff, trends and panel pages need of the viewer, as a protocol.

The viewer (``verifier.viewer.app.Viewer``) lists these pages' ``register`` functions,
so the pages name what they use structurally instead of importing the viewer back.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from fastapi.responses import HTMLResponse

from verifier.gaps.store import GapStore

__all__ = ["PageHost"]


class PageHost(Protocol):
    """The store a page reads, its renderer, and who may frame the panel."""

    @property
    def frame_ancestors(self) -> tuple[str, ...]:
        """Origins besides the viewer's own whose pages may frame the panel."""
        ...

    def store(self) -> AbstractContextManager[GapStore]:
        """The store, open for one request."""
        ...

    def page(self, template: str, title: str, context: Mapping[str, Any]) -> HTMLResponse:
        """``template`` rendered with ``context``."""
        ...
