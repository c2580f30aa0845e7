"""Nothing a command started outlives its call, not even a process that left its group.

Killing a command's process group misses what called ``setsid`` or daemonized (a
double fork): such a process has left the group and, once its parent exits, is
adopted by init. On Linux verifier makes itself the *subreaper* of its descendants
(``prctl(PR_SET_CHILD_SUBREAPER)``, no privilege needed), so those orphans are
adopted by verifier instead, and marks each call's environment with a token of its
own (``VERIFIER_SUT_CALL``), which every process the command starts inherits. When a
call ends (its command exited, timed out or the run was interrupted), every process
carrying the call's token is killed with what it started, and reaped. Finding them
costs a read of verifier's own children list and of their environments, so a call
that left nothing behind pays next to nothing.

Elsewhere (no ``/proc``) only the process group is killed; a process that leaves its
group and scrubs its environment is beyond reach everywhere.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import sys
import time
from pathlib import Path

MARKER = "VERIFIER_SUT_CALL"
"""The variable carrying each call's token in the environment of what it runs."""

_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_GRACE = 2.0  # seconds a sweep waits for killed processes to be gone
_subreaper: bool | None = None


def tracks_escapes() -> bool:
    """Whether processes that leave a command's group can be found and killed here
    (Linux with ``/proc``); the first call makes verifier their subreaper."""
    global _subreaper
    if _subreaper is None:
        _subreaper = _become_subreaper()
    return _PROC.is_dir() and sys.platform.startswith("linux")


def new_token() -> str:
    """A fresh token for one call."""
    return secrets.token_hex(8)


def sweep(token: str, *, spare: int | None = None) -> int:
    """Kills every process carrying ``token`` with its descendants, and reaps those
    verifier adopted.

    Args:
        token: The call's token.
        spare: The call's own process, when asyncio has not reaped it yet: its
            descendants are killed, but it is left to asyncio's child watcher.

    Returns:
        How many processes were killed.
    """
    if not tracks_escapes():
        return 0
    me = os.getpid()
    killed: set[int] = set()
    pending: set[int] = set()  # killed, and not yet reaped or gone
    deadline = time.monotonic() + _GRACE
    while True:
        roots = [p for p in _candidates(me) if p not in killed and _carries(p, token)]
        found = {q for root in roots for q in _subtree(root)}
        if spare is not None:
            found |= _subtree(spare)
            found.discard(spare)
        new = found - killed
        for pid in new:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= new
        pending |= new
        _reap(pending)
        if (not new and not pending) or time.monotonic() > deadline:
            return len(killed)
        time.sleep(0.002)


def _reap(pending: set[int]) -> None:
    """Reaps the killed processes verifier adopted, dropping from ``pending`` every
    one that is gone (or is another process's zombie, for it to reap)."""
    for pid in list(pending):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not ours (yet): wait until it is gone
            if not (_PROC / str(pid)).exists() or _is_zombie_of_other(pid):
                pending.discard(pid)
            continue
        if done != 0:
            pending.discard(pid)


def _candidates(me: int) -> list[int]:
    # As subreaper, everything a call left behind is a child of ours (or below one);
    # without it, orphans went to init and only a scan of every process finds them.
    if _subreaper:
        return _children(me)
    return [int(p.name) for p in _PROC.iterdir() if p.name.isdigit() and int(p.name) != me]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in (_PROC / str(pid) / "task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _subtree(pid: int) -> set[int]:
    seen = {pid}
    stack = [pid]
    while stack:
        for child in _children(stack.pop()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _carries(pid: int, token: str) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:  # gone, or not ours to read
        return False
    return f"\0{MARKER}={token}\0".encode() in b"\0" + environ + b"\0"


def _is_zombie_of_other(pid: int) -> bool:
    # A zombie whose parent is not verifier is that parent's (or init's) to reap.
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    fields = stat.rpartition(")")[2].split()
    return len(fields) > 1 and fields[0] == "Z" and int(fields[1]) != os.getpid()


def _become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
