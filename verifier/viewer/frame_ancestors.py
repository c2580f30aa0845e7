"""Which pages may frame the evaluation panel: ``--frame-ancestor ORIGIN`` and its policy.

Kept apart from the panel's page so that the command line can offer the option
without importing the web framework (an extra).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import click

__all__ = ["FRAME_ANCESTOR_OPTION", "check_frame_ancestor", "frame_ancestors_policy"]

_SOURCE = re.compile(
    r"(?:[a-z][a-z0-9+.-]*:"  # a scheme: https:
    r"|(?:[a-z][a-z0-9+.-]*://)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:[0-9]{1,5}|\*))?)",
    re.IGNORECASE,
)


def check_frame_ancestor(value: str) -> str:
    """``value`` as a CSP source that may frame the panel, or ``ValueError`` saying why.

    Accepted: ``'self'`` (or ``self``), a scheme (``https:``), or a host with an
    optional scheme, ``*.`` wildcard and port (``https://builder.example.com:8443``).
    Anything else (spaces, ``;``, quotes, paths) could break or widen the policy.
    """
    if value.strip("'").lower() == "self":
        return "'self'"
    if not _SOURCE.fullmatch(value):
        raise ValueError(
            f"{value[:80]!r} is not an origin: give 'self', a scheme such as "
            "https:, or scheme://host[:port] (a leading *. allowed), without a path"
        )
    return value


def _option_callback(
    ctx: click.Context, param: click.Parameter, values: Sequence[str]
) -> tuple[str, ...]:
    try:
        return tuple(check_frame_ancestor(v) for v in values)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


FRAME_ANCESTOR_OPTION = click.option(
    "--frame-ancestor",
    "frame_ancestors",
    multiple=True,
    metavar="ORIGIN",
    callback=_option_callback,
    help="An origin whose pages may embed the evaluation panel (/view/panel/RUN) in an "
    "iframe, as https://host[:port]; repeatable. Default: only the viewer's own pages.",
)
"""``--frame-ancestor ORIGIN`` of ``verifier view`` and ``verifier serve``: the value is
a tuple of checked sources (``frame_ancestors``) for ``frame_ancestors_policy``."""


def frame_ancestors_policy(origins: Iterable[str]) -> str:
    """The panel's whole content security policy: the static pages' (no script, no
    fetch) with ``frame-ancestors 'self'`` and ``origins``."""
    # Deferred: the page module brings jinja2, which `verifier --help` (listing the
    # commands that offer this option) need not import.
    from verifier.report._html_page import content_security_policy

    sources = list(dict.fromkeys(["'self'", *(check_frame_ancestor(o) for o in origins)]))
    return f"{content_security_policy(None)}; frame-ancestors {' '.join(sources)}"
