"""The loopback servers of the providers the judge ships with, spoken to through the
providers' own SDKs: what each answers, how it refuses, and that every provider allowed by
default is installed.

The SDKs are imported in the tests that call them: a second and a half of import that every test
process would otherwise spend collecting the suite."""

import asyncio
import time

import pytest
from django.conf import settings
from inspect_ai.model import get_model

from judging.providers import allowed_providers
from tests.llm_server import Reply, Request
from tests.provider_servers import API_KEY, PROVIDERS


def claude(server, key=API_KEY):
    import anthropic

    return anthropic.Anthropic(base_url=server.base_url, api_key=key, max_retries=0)


def ask_claude(server, text="Is it met?", stream=False, key=API_KEY):
    messages = [{"role": "user", "content": text}]
    client = claude(server, key)
    if stream:
        with client.messages.stream(model="claude-x", max_tokens=50, messages=messages) as s:
            return s.get_final_message()
    return client.messages.create(model="claude-x", max_tokens=50, messages=messages)


def ask_gemini(server, text="Is it met?", key=API_KEY):
    from google import genai

    client = genai.Client(
        api_key=key,
        http_options=genai.types.HttpOptions(base_url=server.base_url, retry_options=None),
    )
    return asyncio.run(client.aio.models.generate_content(model="gemini-x", contents=text))


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_answers_a_message_whole_or_streamed_with_its_usage(provider_servers, stream):
    server = provider_servers["anthropic"]
    server.queue("false")
    message = ask_claude(server, "Is the criterion met here?", stream=stream)
    assert [block.text for block in message.content] == ["false"]
    assert message.stop_reason == "end_turn" and message.model == "claude-x"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (5, 1)
    (request,) = server.requests
    assert request.path == "/v1/messages" and request.prompt == "Is the criterion met here?"
    assert bool(request.body.get("stream")) is stream


def test_anthropic_refuses_a_request_without_the_key(provider_servers):
    import anthropic

    with pytest.raises(anthropic.AuthenticationError):
        ask_claude(provider_servers["anthropic"], key="another-key")
    assert provider_servers["anthropic"].requests == []


def test_anthropic_says_overloaded_and_rate_limited_in_its_own_words(provider_servers):
    import anthropic

    server = provider_servers["anthropic"]
    server.queue(Reply.overloaded(retry_after=2), Reply.rate_limited())
    with pytest.raises(anthropic.APIStatusError) as raised:
        ask_claude(server)
    assert raised.value.status_code == 529 and raised.value.response.headers["retry-after"] == "2"
    assert raised.value.body["error"]["type"] == "overloaded_error"
    with pytest.raises(anthropic.RateLimitError):
        ask_claude(server)


def test_anthropic_says_overloaded_in_the_middle_of_a_stream(provider_servers):
    import anthropic

    server = provider_servers["anthropic"]
    server.queue(Reply.overloaded(mid_stream=True))
    with pytest.raises(anthropic.APIStatusError) as raised:
        ask_claude(server, stream=True)
    assert raised.value.body["error"]["type"] == "overloaded_error"
    server.queue(Reply.overloaded(mid_stream=True))  # a call that does not stream: a 529
    with pytest.raises(anthropic.APIStatusError) as raised:
        ask_claude(server)
    assert raised.value.status_code == 529


def test_gemini_answers_generate_content_with_its_usage(provider_servers):
    server = provider_servers["google"]
    server.queue("true")
    answer = ask_gemini(server, "Is the criterion met here?")
    assert answer.text == "true"
    assert answer.usage_metadata.prompt_token_count == 5
    assert answer.usage_metadata.candidates_token_count == 1
    (request,) = server.requests
    assert request.path.endswith("/models/gemini-x:generateContent")
    assert request.prompt == "Is the criterion met here?"


@pytest.mark.parametrize(("status", "words"), [(429, "RESOURCE_EXHAUSTED"), (503, "UNAVAILABLE")])
def test_gemini_refuses_a_busy_call_in_its_own_words(provider_servers, status, words):
    from google import genai

    server = provider_servers["google"]
    server.queue(Reply.overloaded(status=status, retry_after=1))
    with pytest.raises(genai.errors.APIError) as raised:
        ask_gemini(server)
    assert (raised.value.code, raised.value.status) == (status, words)
    assert raised.value.response.headers["Retry-After"] == "1"


@pytest.mark.parametrize("name", ["anthropic", "google"])
def test_a_slow_reply_waits_its_delay(provider_servers, name):
    server = provider_servers[name]
    server.queue(Reply("false", delay=0.3))
    started = time.monotonic()
    ask = ask_claude if name == "anthropic" else ask_gemini
    ask(server)
    assert time.monotonic() - started >= 0.3


def test_gemini_refuses_a_request_without_the_key(provider_servers):
    from google import genai

    with pytest.raises(genai.errors.ClientError) as raised:
        ask_gemini(provider_servers["google"], key="another-key")
    assert raised.value.code == 403 and provider_servers["google"].requests == []


def test_a_prompt_is_read_from_each_protocols_shape():
    anthropic_body = {"system": "Judge.", "messages": [{"role": "user", "content": "Met?"}]}
    gemini_body = {
        "systemInstruction": {"parts": [{"text": "Judge."}]},
        "contents": [{"role": "user", "parts": [{"text": "Met"}, {"text": "?"}]}],
    }
    openai_body = {"messages": [{"role": "system", "content": "Judge."}, {"content": "Met?"}]}
    for body in (anthropic_body, gemini_body, openai_body):
        assert Request("/", {}, body).prompt == "Judge.\nMet?"


def test_the_providers_allowed_by_default_are_those_shipped_and_tested():
    assert settings.JUDGE_ALLOWED_PROVIDERS == ["openai", "anthropic", "google", "openai-api"]
    assert set(PROVIDERS) | {"openai-api"} == set(settings.JUDGE_ALLOWED_PROVIDERS)


@pytest.mark.parametrize("provider", allowed_providers())
def test_every_provider_allowed_by_default_is_installed(provider):
    # A provider whose SDK is missing fails here as a judge run would ("pip install anthropic").
    model = "openai-api/local/judge" if provider == "openai-api" else f"{provider}/judge"
    get_model(model, base_url="http://127.0.0.1:9", api_key=API_KEY, memoize=False)
