"""The viewer's pages over HTTP on a run of a million results (``verifier view``).

Uses the store ``bench/view_first_page.py`` builds (50 small runs and one run of
``--rows`` results, kept in the temporary folder and reused), serves it with
``verifier view``'s application under uvicorn on loopback, and times whole HTTP
requests from a client on the same machine: the runs list, the big run's first page
of results (the page a person opens), filtered by status, by claim, by text, its
next page, one case's page, and the big run's grid (first page, filtered, by text,
and against another run); a text is searched for both where it matches a few results
and where it matches none (a search's worst case: it reads its whole window). Prints the median and the slowest of ``--tries``
tries of each, in milliseconds, and the page's size. The target is a first page in
under 300 ms.

    python bench/view_pages.py [--rows 1000000] [--tries 7] [--rebuild]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.view_first_page import BIG_RUN, prepared_store, timed  # noqa: E402
from tests.server._support import running  # noqa: E402
from verifier.server.settings import ServerSettings  # noqa: E402
from verifier.server.view import create_view_app  # noqa: E402


def main() -> None:
    path, args = prepared_store(__doc__.splitlines()[0])
    settings = ServerSettings(port=0, store=str(path))
    run = f"/view/runs/{BIG_RUN}"
    with running(settings, app=create_view_app(settings)) as url, httpx.Client() as client:
        first = client.get(url + run).text
        found = re.search(r'id="next" href="([^"]+)"', first)
        case = re.search(r'class="case-link" href="([^"]+)"', first)
        assert found and case, "the big run's first page has no next page or no case"
        asks = [
            ("runs list", "/view/runs"),
            ("run, first page", run),
            ("  status=fail", f"{run}?status=fail"),
            ("  claim=tone", f"{run}?claim=tone"),
            ("  text 'case-4242'", f"{run}?q=case-4242"),
            ("  text, run order", f"{run}?q=case-4242&order=run"),
            ("  text matching none", f"{run}?q=zebra"),
            ("  next page", found.group(1).replace("&amp;", "&")),
            ("a case", case.group(1)),
            ("grid, first page", f"{run}/grid"),
            ("  status=pass", f"{run}/grid?status=pass"),
            ("  text 'case-4242'", f"{run}/grid?q=case-4242"),
            ("  text matching none", f"{run}/grid?q=zebra"),
            ("  against a run", f"{run}/grid?against=bench-small-049"),
        ]
        print(f"{'page':<24}{'median ms':>10}{'max ms':>9}{'KiB':>7}  status")
        for name, path_ in asks:
            median, slowest, response = timed(lambda p=path_: client.get(url + p), args.tries)
            size = len(response.content) / 1024
            print(f"{name:<24}{median:>10.1f}{slowest:>9.1f}{size:>7.0f}  {response.status_code}")


if __name__ == "__main__":
    main()
