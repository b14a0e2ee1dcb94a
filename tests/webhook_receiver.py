"""A webhook receiver on the loopback for the tests: a real HTTP server recording each request
it gets (path, headers, body) and answering by path: `/ok` 200, `/fail` 500, `/big` 200 with
4 MB, `/slow` only once the test ends (`release()`), so a client with a short timeout gives up
first. `refused_url()` is a port where nothing listens (connection refused)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class _Handler(BaseHTTPRequestHandler):
    server: Receiver
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.received.append(Received(self.path, dict(self.headers.items()), body))
        if self.path == "/slow":
            self.server.released.wait(10)
        status, text = (500, b"broken") if self.path == "/fail" else (200, b"thanks")
        if self.path == "/big":
            text = b"x" * 4_000_000
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(text)  # a client that read enough may have hung up


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[Received] = []
        self.released = threading.Event()

    def url(self, path: str) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}{path}"

    def reset(self) -> None:
        self.received.clear()
        self.released.clear()

    def release(self) -> None:
        self.released.set()


@contextlib.contextmanager
def running_receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, name="webhook-receiver", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def refused_url() -> str:
    """A loopback URL where nothing listens: the port was free a moment ago and is closed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/down"
