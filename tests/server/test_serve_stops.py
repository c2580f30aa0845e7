"""``verifier serve`` stopped by Ctrl-C ends quietly with exit 0, as ``verifier view``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path


def test_ctrl_c_stops_the_server_quietly_with_exit_0(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "ANTHROPIC_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "verifier", "serve", "--port", "0", "--store", "gaps.db"],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal, whatever this suite inherited: Ctrl-C raises in Python.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    said = []
    while not (line := process.stderr.readline()).startswith("serving the API on http://"):
        assert line, "".join(said)
        said.append(line)
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    assert process.wait(timeout=30) == 0
    assert rest == "server stopped\n"
