"""Loopback servers speaking the protocols of the providers the judge ships with: Anthropic's
Messages API, Gemini's generateContent, and OpenAI's chat completions for Inspect's `openai/`
provider (`tests/llm_server.py` speaks that one, for `openai-api/loopback/...`).

Each answers from the same script as the OpenAI-compatible server (`LlmServer`: queued
replies, then `default`, a reply's delay, every request recorded, token usage on every
answer), in its own
protocol's shapes: its routes, its error bodies (a 429 with Retry-After, Anthropic's 529
"overloaded", Gemini's 503), Anthropic's server-sent events when the client streams (Inspect
streams a Claude 4 model's calls, whose default max_tokens is 32,000), and it refuses a request
without the test key. `running_provider_server(name)` starts one on 127.0.0.1 and points
Inspect's provider at it by the variables Inspect reads (`PROVIDERS`), the network out.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tests.llm_server import (
    HttpServer,
    JsonHandler,
    LlmServer,
    Reply,
    Request,
    _Handler,
    environment,
    retry_after,
    tokens,
)

API_KEY = "loopback-provider-key"


class AnthropicHandler(JsonHandler):
    """Anthropic's Messages API: `POST /v1/messages`, the key in `x-api-key` or (as the SDK
    sends it since 2.0) `Authorization: Bearer`."""

    ERRORS = {
        400: "invalid_request_error",
        401: "authentication_error",
        429: "rate_limit_error",
        529: "overloaded_error",
    }
    STOP_REASONS = {"stop": "end_turn", "length": "max_tokens"}

    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        if urlsplit(self.path).path != "/v1/messages":
            self.send_error_reply(Reply(f"no route {self.path}", status=404))
            return
        keys = (self.headers.get("x-api-key"), self.headers.get("Authorization"))
        if API_KEY not in keys and f"Bearer {API_KEY}" not in keys:
            self.send_error_reply(Reply("invalid x-api-key", status=401))
            return
        request = Request(self.path, dict(self.headers.items()), body)
        reply, number = self.server.llm.answer(request)
        time.sleep(reply.delay)
        if reply.status != 200 and not (reply.mid_stream and body.get("stream")):
            self.send_error_reply(reply)
            return
        message = {
            "id": f"msg_loopback_{number}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": self.STOP_REASONS.get(reply.finish_reason, reply.finish_reason),
            "stop_sequence": None,
            "usage": {"input_tokens": tokens(request.prompt), "output_tokens": tokens(reply.text)},
        }
        if body.get("stream"):
            error = self.error_body(reply) if reply.status != 200 else None
            self.send_body(200, "text/event-stream", _events(message, error))
        else:
            self.send_json(200, message)

    def error_body(self, reply: Reply) -> dict[str, Any]:
        kind = self.ERRORS.get(reply.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": reply.text}}

    def send_error_reply(self, reply: Reply) -> None:
        self.send_json(reply.status, self.error_body(reply), retry_after(reply))


def _events(message: dict[str, Any], error: dict[str, Any] | None = None) -> bytes:
    """`message` as the Messages API streams it: its start (no content, the input tokens), a
    text block in two deltas, then the stop reason and output tokens; or, with an `error`,
    its start and then the error."""
    text = message["content"][0]["text"]
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 0}}
    halves = [text[: len(text) // 2], text[len(text) // 2 :]]
    answer = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
            for t in halves
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
        {"type": "message_stop"},
    ]
    events = [{"type": "message_start", "message": start}, *([error] if error else answer)]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


class GeminiHandler(JsonHandler):
    """Gemini's API: `POST /v1/models/<model>:generateContent` (google-genai 3 calls `v1`,
    earlier ones `v1beta`), or `:streamGenerateContent?alt=sse`; key in `x-goog-api-key`."""

    ROUTE = re.compile(r"/v1(beta)?/models/(?P<model>[^/:]+):(?P<method>\w+)")
    STATUSES = {
        400: "INVALID_ARGUMENT",
        403: "PERMISSION_DENIED",
        404: "NOT_FOUND",
        429: "RESOURCE_EXHAUSTED",
        503: "UNAVAILABLE",
    }
    FINISH_REASONS = {"stop": "STOP", "length": "MAX_TOKENS"}

    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        route = self.ROUTE.fullmatch(urlsplit(self.path).path)
        method = route["method"] if route else None
        if route is None or method not in ("generateContent", "streamGenerateContent"):
            self.send_error_reply(Reply(f"no route {self.path}", status=404))
            return
        if self.headers.get("x-goog-api-key") != API_KEY:
            self.send_error_reply(Reply("API key not valid", status=403))
            return
        request = Request(self.path, dict(self.headers.items()), body)
        reply, number = self.server.llm.answer(request)
        time.sleep(reply.delay)
        if reply.status != 200:
            self.send_error_reply(reply)
            return
        prompt_tokens, answer_tokens = tokens(request.prompt), tokens(reply.text)
        answer = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": reply.text}]},
                    "finishReason": self.FINISH_REASONS.get(reply.finish_reason, "OTHER"),
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": answer_tokens,
                "totalTokenCount": prompt_tokens + answer_tokens,
            },
            "modelVersion": route["model"],
            "responseId": f"loopback-{number}",
        }
        if method == "streamGenerateContent":  # one chunk holds the whole answer
            self.send_body(200, "text/event-stream", f"data: {json.dumps(answer)}\r\n\r\n".encode())
        else:
            self.send_json(200, answer)

    def send_error_reply(self, reply: Reply) -> None:
        status = self.STATUSES.get(reply.status, "INTERNAL")
        error = {"error": {"code": reply.status, "message": reply.text, "status": status}}
        self.send_json(reply.status, error, retry_after(reply))


@dataclass(frozen=True)
class Provider:
    """An Inspect provider, the model a test calls it with, the protocol its server speaks,
    and the variables (from the server's origin) that point the provider at it."""

    model: str
    handler: type[JsonHandler]
    variables: Callable[[str], dict[str, str | None]]


PROVIDERS = {
    "anthropic": Provider(
        "anthropic/claude-sonnet-4-6",
        AnthropicHandler,
        lambda origin: {
            "ANTHROPIC_BASE_URL": origin,
            "ANTHROPIC_API_KEY": API_KEY,
            "ANTHROPIC_AUTH_TOKEN": None,  # would be sent instead of the key
        },
    ),
    "google": Provider(
        "google/gemini-2.5-flash",
        GeminiHandler,
        lambda origin: {
            "GOOGLE_BASE_URL": origin,
            "GOOGLE_API_KEY": API_KEY,
            "GEMINI_API_KEY": None,
            "GOOGLE_GENAI_USE_VERTEXAI": None,  # Vertex AI's routes, not Gemini's
            "GOOGLE_GENAI_USE_ENTERPRISE": None,
        },
    ),
    "openai": Provider(
        "openai/gpt-4.1-mini",  # a model Inspect sends to chat completions
        _Handler,
        lambda origin: {"OPENAI_BASE_URL": f"{origin}/v1", "OPENAI_API_KEY": API_KEY},
    ),
}
# A model of the gpt-5 series, which Inspect sends to OpenAI's Responses API instead.
OPENAI_RESPONSES_MODEL = "openai/gpt-5-mini"


@contextlib.contextmanager
def running_provider_server(
    name: str, home: str | None = None, allowed_names: Collection[str] = ()
) -> Iterator[LlmServer]:
    """Start the loopback server of provider `name` (a key of `PROVIDERS`) and point Inspect's
    provider at it until the block ends, the network out."""
    provider = PROVIDERS[name]
    llm = LlmServer()
    httpd = HttpServer(llm, provider.handler)
    llm.base_url = httpd.origin
    with httpd.serving(), environment(provider.variables(httpd.origin), home, allowed_names):
        yield llm
