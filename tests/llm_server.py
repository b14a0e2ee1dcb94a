"""A loopback server speaking the OpenAI chat-completions protocol, for tests that run a model.

Inspect AI's `openai-api/<service>/<model>` provider reaches any OpenAI-compatible server named
by `<SERVICE>_BASE_URL` and `<SERVICE>_API_KEY`; `running_llm_server()` starts this one on
127.0.0.1 (an ephemeral port, in a thread), points `LOOPBACK_*` at it and refuses every other
connection, so a test that runs a model never reaches the network. (Inspect's own `mockllm`
provider counts tokens with a tokenizer that is downloaded at run time.)

It speaks OpenAI's batch protocol too (`POST /v1/files`, `POST /v1/batches`,
`GET /v1/batches/{id}`, `GET /v1/files/{id}/content`: JSONL in, JSONL out), which Inspect's
`openai/` provider calls for a run with `batch`: a batch stays "in_progress" for
`server.batch_seconds` after it is created, then its requests are answered from the script, in
order, each recorded as the request it holds (`Request.batch` names its batch).

What it answers comes from a script: replies queued with `server.queue(...)` are sent first, in
order; then `server.default(request)` (a callable taking the request body) decides, "true" unless
told otherwise. A reply is text (with usage token counts), an HTTP error (a 429 with
Retry-After, say), or either after a delay. Every request is recorded.

Start one server per test process and `reset()` it between tests (the `llm_server` fixture
does both): Inspect memoizes a model by its name, so a second server under the same name would
never be called.

Benchmarks run it in a process of its own instead (`llm_server_process()`, or
`python -m tests.llm_server --delay 0.05`), answering every call the same text: in the judge's
process its request threads would take the interpreter lock from Inspect's event loop, which is
what is measured.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

SERVICE = "loopback"
API_KEY = "loopback-test-key"


def model_name(name: str = "judge-1") -> str:
    """The Inspect model string of model `name` served by the loopback server."""
    return f"openai-api/{SERVICE}/{name}"


@dataclass(frozen=True)
class Reply:
    """One answer: `text` as the assistant's message, or an HTTP error when `status` is not 200
    (sent as an error event after a 200, when `mid_stream`, to a call that streams: Anthropic's
    servers do so)."""

    text: str = "true"
    status: int = 200
    delay: float = 0.0
    retry_after: float | None = None
    finish_reason: str = "stop"
    mid_stream: bool = False

    @classmethod
    def rate_limited(cls, retry_after: float = 0.0) -> Reply:
        return cls(text="Rate limit reached, retry later", status=429, retry_after=retry_after)

    @classmethod
    def server_error(cls) -> Reply:
        return cls(text="The server had an error", status=500)

    @classmethod
    def overloaded(
        cls, status: int = 529, retry_after: float = 0.0, mid_stream: bool = False
    ) -> Reply:
        """The provider is busy: Anthropic answers 529, Gemini 503."""
        return cls("Overloaded", status=status, retry_after=retry_after, mid_stream=mid_stream)


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    batch: str = ""  # the batch it came in, when it came in one

    @property
    def prompt(self) -> str:
        """The text of every message, joined: what a script usually matches on. Reads the
        OpenAI and Anthropic shape (`system`, `messages`), OpenAI's Responses API's
        (`instructions`, `input`) and Gemini's (`systemInstruction`, `contents` of `parts`)."""
        body = self.body
        turns = [body.get("system"), *(m.get("content") for m in body.get("messages", []))]
        items = body.get("input", [])  # the Responses API's: a text, or a list of items
        items = [{"content": items}] if isinstance(items, str) else items
        turns += [
            body.get("instructions"),
            *(i.get("content") for i in items if isinstance(i, dict)),
        ]
        gemini = [body.get("systemInstruction"), *body.get("contents", [])]
        turns += [turn.get("parts") for turn in gemini if isinstance(turn, dict)]
        return "\n".join(_text(content) for content in turns if content)


def _text(content: Any) -> str:
    """A message's text: a string, or the `text` of each of its blocks (or parts)."""
    if isinstance(content, list):
        return "".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return str(content)


def tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: one token per word, at least one."""
    return max(1, len(text.split()))


@dataclass
class LlmServer:
    base_url: str = ""
    requests: list[Request] = field(default_factory=list)
    default: Callable[[Request], Reply | str] = lambda request: Reply()
    record: bool = True  # keep every request in `requests` (a benchmark's server does not)
    batch_seconds: float = 0.0  # how long a batch stays "in_progress" after its creation
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    _queued: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def reset(self) -> None:
        """Forget the requests and queued replies; answer "true" again."""
        with self._lock:
            self.requests.clear()
            self._queued.clear()
            self.default = lambda request: Reply()
            self.batch_seconds = 0.0
            self.files.clear()
            self.batches.clear()

    def queue(self, *replies: Reply | str) -> None:
        """Answer the next requests with these replies, in order, before the default."""
        with self._lock:
            self._queued.extend(_reply(r) for r in replies)

    def answer(self, request: Request) -> tuple[Reply, int]:
        with self._lock:
            if self.record:
                self.requests.append(request)
            number = next(self._ids)
            queued = self._queued.popleft() if self._queued else None
        return queued or _reply(self.default(request)), number

    @property
    def completions(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}-loopback-{next(self._ids)}"


def _reply(reply: Reply | str) -> Reply:
    return Reply(text=reply) if isinstance(reply, str) else reply


def completion_body(request: Request, reply: Reply, number: int) -> dict[str, Any]:
    prompt_tokens, completion_tokens = tokens(request.prompt), tokens(reply.text)
    return {
        "id": f"chatcmpl-loopback-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": reply.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def response_body(request: Request, reply: Reply, number: int) -> dict[str, Any]:
    """The Responses API's answer (`POST /responses`), which Inspect's `openai/` provider
    calls for the `gpt-5` and `o` series."""
    input_tokens, output_tokens = tokens(request.prompt), tokens(reply.text)
    text = {"type": "output_text", "text": reply.text, "annotations": []}
    return {
        "id": f"resp_loopback_{number}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed" if reply.finish_reason == "stop" else "incomplete",
        "model": request.body.get("model", ""),
        "output": [
            {
                "type": "message",
                "id": f"msg_loopback_{number}",
                "status": "completed",
                "role": "assistant",
                "content": [text],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


# Inspect's `openai/` provider asks once per model, before its first Responses API call, whether
# the account may have reasoning summaries; the server answers yes, leaving its script and
# `requests` to the calls a test makes.
SUMMARIES_PROBE = "Please say 'hello, world'"

# The answer of each route, by its last part: chat completions and the Responses API.
ANSWERS = {"completions": completion_body, "responses": response_body}


def error_body(reply: Reply) -> dict[str, Any]:
    kind = "rate_limit_error" if reply.status == 429 else "server_error"
    return {"error": {"message": reply.text, "type": kind, "param": None, "code": kind}}


class JsonHandler(BaseHTTPRequestHandler):
    """What every protocol's handler shares: reading a JSON body, answering JSON."""

    server: HttpServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `requests`
        pass

    def read_json(self) -> Any:
        """The request's body as JSON, or None (answered 400) when it is not JSON."""
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length))
        except ValueError:
            self.send_json(400, {"error": {"message": "body is not JSON", "type": "invalid"}})
            return None

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.send_body(status, "application/json", json.dumps(body).encode(), headers)

    def send_body(
        self, status: int, kind: str, data: bytes, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def retry_after(reply: Reply) -> dict[str, str]:
    """The Retry-After header of an error reply that has one."""
    return {"Retry-After": f"{reply.retry_after:g}"} if reply.retry_after else {}


class _Handler(JsonHandler):
    """The OpenAI chat-completions protocol, and its batch API."""

    def do_GET(self) -> None:
        path = self.path.rstrip("/")
        if path.endswith("/models"):
            self.send_json(200, {"object": "list", "data": []})
        elif (found := BATCH_ROUTE.fullmatch(path)) is not None:
            batch = batch_state(self.server.llm, found["id"])
            self.send_json(200, batch) if batch else self.send_not_found()
        elif (found := FILE_CONTENT_ROUTE.fullmatch(path)) is not None:
            data = self.server.llm.files.get(found["id"])
            if data is None:
                self.send_not_found()
            else:
                self.send_body(200, "application/octet-stream", data)
        else:
            self.send_not_found()

    def send_not_found(self) -> None:
        self.send_json(404, {"error": {"message": f"no route {self.path}", "type": "none"}})

    def do_POST(self) -> None:
        path = self.path.rstrip("/")
        if path.endswith("/files"):
            self.upload_file()
            return
        if path.endswith("/batches"):
            self.create_batch()
            return
        body = self.read_json()
        if body is None:
            return
        answer_body = ANSWERS.get(self.path.rsplit("/", 1)[-1])
        if answer_body is None:
            self.send_json(404, {"error": {"message": f"no route {self.path}", "type": "none"}})
            return
        request = Request(self.path, dict(self.headers.items()), body)
        if body.get("input") == SUMMARIES_PROBE:  # not a judge's call: answered aside
            reply, number = Reply("hello, world"), 0
        else:
            reply, number = self.server.llm.answer(request)
        if body.get("stream"):
            self.send_json(400, {"error": {"message": "streaming is not served", "type": "x"}})
            return
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status != 200:
            self.send_json(reply.status, error_body(reply), retry_after(reply))
            return
        self.send_json(200, answer_body(request, reply, number))

    def upload_file(self) -> None:
        """`POST /v1/files`: a multipart form with the file and its `purpose`."""
        length = int(self.headers.get("Content-Length") or 0)
        form = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {self.headers.get('Content-Type')}\r\n\r\n".encode()
            + self.rfile.read(length)
        )
        parts = {
            part.get_param("name", header="content-disposition"): part for part in form.iter_parts()
        }
        upload = parts.get("file")
        data = upload.get_payload(decode=True) if upload is not None else None
        if not isinstance(data, bytes):
            self.send_json(400, {"error": {"message": "no file", "type": "invalid_request_error"}})
            return
        llm = self.server.llm
        file_id = llm.new_id("file")
        llm.files[file_id] = data
        self.send_json(200, file_object(file_id, data, "batch"))

    def create_batch(self) -> None:
        """`POST /v1/batches`: a batch of the requests in an uploaded JSONL file."""
        body = self.read_json()
        if body is None:
            return
        llm = self.server.llm
        data = llm.files.get(body.get("input_file_id", ""))
        if data is None:
            self.send_json(
                404, {"error": {"message": "no such file", "type": "invalid_request_error"}}
            )
            return
        lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        batch_id = llm.new_id("batch")
        llm.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint", "/v1/chat/completions"),
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window", "24h"),
            "status": "in_progress",
            "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "lines": lines,
            "started": time.monotonic(),
        }
        self.send_json(200, batch_state(llm, batch_id))


BATCH_ROUTE = re.compile(r".*/batches/(?P<id>[^/]+)")
FILE_CONTENT_ROUTE = re.compile(r".*/files/(?P<id>[^/]+)/content")


def file_object(file_id: str, data: bytes, purpose: str) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": len(data),
        "created_at": int(time.time()),
        "filename": f"{file_id}.jsonl",
        "purpose": purpose,
        "status": "processed",
    }


def batch_state(llm: LlmServer, batch_id: str) -> dict[str, Any] | None:
    """The batch as the API describes it; once its time is up, answered (its requests asked of
    the script in order) and "completed", with an output file."""
    batch = llm.batches.get(batch_id)
    if batch is None:
        return None
    if (
        batch["status"] == "in_progress"
        and time.monotonic() - batch["started"] >= llm.batch_seconds
    ):
        out = [_batch_answer(llm, batch_id, line) for line in batch["lines"]]
        output_id = llm.new_id("file")
        llm.files[output_id] = "".join(json.dumps(line) + "\n" for line in out).encode()
        failed = sum(1 for line in out if line["error"] is not None)
        batch |= {
            "status": "completed",
            "output_file_id": output_id,
            "completed_at": int(time.time()),
            "request_counts": {"total": len(out), "completed": len(out) - failed, "failed": failed},
        }
    return {k: v for k, v in batch.items() if k not in ("lines", "started")}


def _batch_answer(llm: LlmServer, batch_id: str, line: dict[str, Any]) -> dict[str, Any]:
    """One line of a batch's output: the answer to one line of its input."""
    request = Request(line["url"], {}, line["body"], batch=batch_id)
    reply, number = llm.answer(request)
    answer = ANSWERS[line["url"].rsplit("/", 1)[-1]]
    response = (
        {"status_code": 200, "request_id": f"req-{number}", "body": answer(request, reply, number)}
        if reply.status == 200
        else {"status_code": reply.status, "request_id": f"req-{number}", "body": error_body(reply)}
    )
    return {
        "id": f"batch_req_{number}",
        "custom_id": line["custom_id"],
        "response": response,
        "error": None,
    }


class HttpServer(ThreadingHTTPServer):
    """A threaded HTTP server on an ephemeral port of 127.0.0.1 answering from `llm`'s
    script in the protocol of `handler`."""

    daemon_threads = True
    # socketserver's default listen backlog is 5: a client opening its 32 connections at once
    # had some reset, and waited for its retry.
    request_queue_size = 256

    def __init__(self, llm: LlmServer, handler: type[JsonHandler] = _Handler) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.llm = llm

    @property
    def origin(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Serve in a thread until the block ends."""
        thread = threading.Thread(target=self.serve_forever, name="loopback-llm", daemon=True)
        thread.start()
        try:
            yield
        finally:
            self.shutdown()
            self.server_close()
            thread.join(timeout=5)


_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


def _is_loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        return str(address[0]) in _LOOPBACK_HOSTS
    return isinstance(address, str | bytes)  # a Unix socket path stays on the machine


@contextlib.contextmanager
def no_network(allowed_names: Collection[str] = ()) -> Iterator[None]:
    """Refuse every connection and name look-up that would leave the machine, except look-ups
    of `allowed_names` (the database server's, whose driver resolves it in Python)."""
    names = _LOOPBACK_HOSTS | set(allowed_names)
    connect, connect_ex, getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def guarded_connect(sock: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            raise ConnectionRefusedError(f"tests do not reach the network ({address!r})")
        connect(sock, address)

    def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            raise ConnectionRefusedError(f"tests do not reach the network ({address!r})")
        return connect_ex(sock, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in names:
            raise socket.gaierror(f"tests do not look up names off the machine ({name!r})")
        return getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", guarded_connect)
        patch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
        patch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
        yield


@contextlib.contextmanager
def running_llm_server(
    home: str | None = None, allowed_names: Collection[str] = ()
) -> Iterator[LlmServer]:
    """Start a loopback server, point Inspect's `openai-api/loopback/...` models at it, and
    keep the network out until the block ends (see `no_network`). `home`, when given, holds
    Inspect's data and cache folders (traces, the model cache) instead of the user's."""
    llm = LlmServer()
    httpd = HttpServer(llm)
    llm.base_url = f"{httpd.origin}/v1"
    with httpd.serving(), pointed_at(llm.base_url, home, allowed_names):
        yield llm


@contextlib.contextmanager
def llm_server_process(
    *,
    text: str = "true",
    delay: float = 0.0,
    home: str | None = None,
    allowed_names: Collection[str] = (),
) -> Iterator[str]:
    """The loopback server in a process of its own, answering every call `text` after `delay`
    seconds, with Inspect pointed at it as `running_llm_server` does; yields its base URL."""
    command = [sys.executable, "-m", "tests.llm_server", "--text", text, "--delay", f"{delay}"]
    root = Path(__file__).resolve().parents[1]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=root)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the loopback server did not start (exit {process.poll()})")
        with pointed_at(base_url, home, allowed_names):
            yield base_url
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextlib.contextmanager
def pointed_at(
    base_url: str, home: str | None = None, allowed_names: Collection[str] = ()
) -> Iterator[None]:
    """Point Inspect's `openai-api/loopback/...` models at `base_url`, with no proxy and no
    opt-in hook that could send data elsewhere, and the network out (see `no_network`)."""
    prefix = SERVICE.upper()
    variables: dict[str, str | None] = {
        f"{prefix}_BASE_URL": base_url,
        f"{prefix}_API_KEY": API_KEY,
    }
    with environment(variables, home, allowed_names):
        yield


@contextlib.contextmanager
def environment(
    variables: dict[str, str | None],
    home: str | None = None,
    allowed_names: Collection[str] = (),
) -> Iterator[None]:
    """Set `variables` (a provider's base URL and key; None unsets one), with no proxy and no
    opt-in hook or fallback base URL that could send data elsewhere, and the network out (see
    `no_network`)."""
    with pytest.MonkeyPatch.context() as env, no_network(allowed_names):
        for name, value in variables.items():
            if value is None:
                env.delenv(name, raising=False)
            else:
                env.setenv(name, value)
        env.setenv("NO_PROXY", "127.0.0.1,localhost")
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            env.delenv(name, raising=False)
        env.delenv("INSPECT_TELEMETRY", raising=False)
        env.delenv("INSPECT_API_KEY_OVERRIDE", raising=False)
        env.delenv("INSPECT_EVAL_MODEL_BASE_URL", raising=False)
        if home is not None:
            env.setenv("XDG_DATA_HOME", f"{home}/data")
            env.setenv("XDG_CACHE_HOME", f"{home}/cache")
        yield


def main() -> None:
    """Serve until stopped, answering every call the same text after a delay; the first line
    printed is the base URL."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--text", default="true")
    parser.add_argument("--delay", type=float, default=0.0)
    options = parser.parse_args()
    reply = Reply(text=options.text, delay=options.delay)
    llm = LlmServer(default=lambda request: reply, record=False)
    httpd = HttpServer(llm)
    print(f"{httpd.origin}/v1", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
