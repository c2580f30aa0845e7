"""What both HTML reports share: the Jinja2 environment, the stylesheet, the page's
content security policy, and writing the file whole or not at all.

Templates autoescape everything: reasons, evidence and case ids are untrusted text
(an LLM wrote some of it). As a second line, each page carries a content security
policy that allows no network fetch at all and runs only the one inline script whose
hash it names, so even markup that slipped through could neither run nor call out.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from pathlib import Path

import jinja2
from markupsafe import Markup

from verifier._internal.atomic import AtomicFile

__all__ = ["content_security_policy", "environment", "write_atomically"]


def environment(*packages: str) -> jinja2.Environment:
    """The autoescaping environment over the ``templates`` folders of ``packages``,
    the first holding a name winning (default: the reports' alone; the viewer's pages
    find the reports' parts after their own)."""
    loaders = [jinja2.PackageLoader(p, "templates") for p in packages or ("verifier.report",)]
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def content_security_policy(script: str | None) -> Markup:
    """A policy allowing inline styles, ``data:`` images and, if given, exactly ``script``.

    Args:
        script: The text of the page's one inline script, or ``None`` for no script.
    """
    if script is None:
        scripts = "'none'"
    else:
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        scripts = f"'sha256-{digest}'"
    return Markup(
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {scripts}; base-uri 'none'; form-action 'none'"
    )


def write_atomically(path: Path, chunks: Iterable[str]) -> None:
    """Writes ``chunks`` to a temporary file beside ``path``, then renames it over
    ``path``: a report that fails half-way leaves no half file behind.

    Raises:
        OutputError: The file cannot be written.
    """
    target = AtomicFile(path, "the report")
    try:
        for chunk in chunks:
            target.stream.write(chunk)
    except BaseException:
        target.discard()
        raise
    target.commit()
