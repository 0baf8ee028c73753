"""Reading a server-sent event stream from the Flask test client, with timeouts."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

from werkzeug.test import TestResponse


class SseReader:
    """Parses ``event:``/``data:`` blocks on a thread; ``next()`` waits with a timeout."""

    def __init__(self, response: TestResponse) -> None:
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.mimetype == "text/event-stream"
        self.raw: list[str] = []
        self._q: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._response = response
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        buf = ""
        try:
            for chunk in self._response.response:
                text = chunk.decode() if isinstance(chunk, bytes) else chunk
                self.raw.append(text)
                buf += text
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    kind, data = "message", None
                    for line in block.split("\n"):
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            data = json.loads(line[6:])
                    if data is not None or kind != "message":
                        self._q.put((kind, data))
        finally:
            self._q.put(None)

    def next(self, kind: str | None = None, timeout: float = 5.0) -> tuple[str, Any]:
        """The next item (of ``kind``, skipping others); AssertionError on timeout or end."""
        while True:
            try:
                item = self._q.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {kind or 'SSE'} item within {timeout} s") from None
            if item is None:
                raise AssertionError("the stream ended")
            if kind is None or item[0] == kind:
                return item

    def text(self) -> str:
        return "".join(self.raw)
