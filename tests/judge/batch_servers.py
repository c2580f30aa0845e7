"""The local Messages server with what runs of many batches need: batches that expire,
a creation held until the test lets it go, and the batches created, in order."""

from __future__ import annotations

import threading
from collections.abc import Collection
from typing import Any

from tests.judge.behaviours import expired
from tests.judge.messages_server import MessagesServer
from tests.judge.server_batches import Batch


class BatchServer(MessagesServer):
    """A :class:`MessagesServer` whose batches can expire or be held at creation.

    Args:
        expire: Which batches (1 for the first created) expire: every request of
            theirs ends ``expired``, as when a batch outlives the API's 24 hours.
        hold_from: Creations from this one on wait until :meth:`release`, then create
            nothing (their client is meant to be killed meanwhile).
        kwargs: What :class:`MessagesServer` takes.
    """

    def __init__(
        self, *, expire: Collection[int] = (), hold_from: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.expire = set(expire)
        self.hold_from = hold_from
        self.held = threading.Event()
        self._release = threading.Event()
        self._asked = 0
        self._created: list[Batch] = []

    def release(self) -> None:
        """Lets held creations go (they create nothing) and holds no later one."""
        self.hold_from = None
        self._release.set()

    def created(self) -> list[tuple[str, list[str]]]:
        """Each batch created, in order: its id and its requests' custom_ids."""
        with self._lock:
            return [(b.id, [custom_id for custom_id, _, _ in b.items]) for b in self._created]

    def _create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._asked += 1
            number = self._asked
        if self.hold_from is not None and number >= self.hold_from:
            self.held.set()
            self._release.wait(60)
            return Batch("msgbatch_never_created", []).as_json(ended=False, base_url="")
        created = super()._create_batch(body)
        with self._lock:
            batch = self._batches[created["id"]]
            if number in self.expire:
                batch.items = [(cid, params, expired()) for cid, params, _ in batch.items]
            self._created.append(batch)
        return created
