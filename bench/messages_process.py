"""The local Messages API test server in a process of its own, for the judge benches.

In the bench's own process the server's handler threads take the GIL from the event
loop they serve, so its CPU would be billed to the scheduler under measurement. Here
it runs alone, answering every model call after exactly ``latency`` seconds through
the judge brain, and takes one-line commands on stdin:

- ``stats``: prints ``{"calls": N, "max_in_flight": M}`` (model calls so far, most in
  flight at once) and resets the peak;
- end of input: the server stops.

Its first line on stdout is the server's ``base_url``::

    python bench/messages_process.py 0.3
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.judge.judge_brain import brain  # noqa: E402
from tests.judge.messages_server import MessagesServer  # noqa: E402


class ServerProcess:
    """A context manager running this module as a child process."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> ServerProcess:
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(self.latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.base_url = self._line()
        return self

    def _line(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line:
            raise SystemExit(f"the test server stopped (exit {self._process.wait()})")
        return line

    def stats(self) -> tuple[int, int]:
        """Model calls answered so far and the most in flight at once since the last
        ``stats`` (the peak is reset)."""
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write("stats\n")
        self._process.stdin.flush()
        figures = json.loads(self._line())
        return int(figures["calls"]), int(figures["max_in_flight"])

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            self._process.wait(10)


def serve(latency: float) -> None:
    """Serves until stdin ends (run as the child process)."""
    with MessagesServer(default=brain, latency=latency) as server:
        print(server.base_url, flush=True)
        for command in sys.stdin:
            if command.strip() == "stats":
                figures = {
                    "calls": len(server.model_calls()),
                    "max_in_flight": server.max_in_flight,
                }
                server.max_in_flight = 0
                print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    serve(float(sys.argv[1]))
