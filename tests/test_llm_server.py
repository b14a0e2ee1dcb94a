"""The loopback OpenAI-compatible server the tests run models against: what it answers, what it
records, and that nothing else is reachable while it runs."""

import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from tests.llm_server import API_KEY, Reply, llm_server_process, no_network


def chat(server, text="Is it met?", model="judge-1", path="/chat/completions"):
    body = {"model": model, "messages": [{"role": "user", "content": text}]}
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, dict(answer.headers), json.loads(answer.read())


def answer_text(body):
    return body["choices"][0]["message"]["content"]


def test_a_chat_completion_answers_true_with_token_counts(llm_server):
    status, _, body = chat(llm_server, "Is the criterion met here?")
    assert status == 200 and body["object"] == "chat.completion"
    assert answer_text(body) == "true" and body["model"] == "judge-1"
    assert body["usage"] == {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}


def test_queued_replies_come_first_in_order_then_the_default(llm_server):
    llm_server.queue("false", "I cannot decide")
    llm_server.default = lambda request: f"default for {request.body['model']}"
    answers = [answer_text(chat(llm_server)[2]) for _ in range(3)]
    assert answers == ["false", "I cannot decide", "default for judge-1"]


def test_every_request_is_recorded_with_its_body_and_key(llm_server):
    chat(llm_server, "first")
    chat(llm_server, "second", model="tutor-1")
    assert [(r.body["model"], r.prompt) for r in llm_server.completions] == [
        ("judge-1", "first"),
        ("tutor-1", "second"),
    ]
    assert llm_server.requests[0].headers["Authorization"] == f"Bearer {API_KEY}"


def test_a_rate_limit_answers_429_with_retry_after(llm_server):
    llm_server.queue(Reply.rate_limited(retry_after=2))
    with pytest.raises(urllib.error.HTTPError) as raised:
        chat(llm_server)
    assert raised.value.code == 429 and raised.value.headers["Retry-After"] == "2"
    assert json.loads(raised.value.read())["error"]["type"] == "rate_limit_error"
    assert answer_text(chat(llm_server)[2]) == "true"


def test_a_slow_reply_waits_its_delay(llm_server):
    llm_server.queue(Reply("false", delay=0.3))
    started = time.monotonic()
    assert answer_text(chat(llm_server)[2]) == "false"
    assert time.monotonic() - started >= 0.3


def test_an_unknown_route_is_404(llm_server):
    with pytest.raises(urllib.error.HTTPError) as raised:
        chat(llm_server, path="/embeddings")
    assert raised.value.code == 404


def test_reset_forgets_requests_and_script(llm_server):
    llm_server.queue("false")
    llm_server.default = lambda request: "never"
    chat(llm_server, "x")
    llm_server.queue("queued")
    llm_server.reset()
    assert llm_server.requests == []
    assert answer_text(chat(llm_server)[2]) == "true"


def test_the_environment_points_inspect_at_the_server(llm_server):
    assert os.environ["LOOPBACK_BASE_URL"] == llm_server.base_url
    assert os.environ["LOOPBACK_API_KEY"] == API_KEY
    assert "INSPECT_TELEMETRY" not in os.environ


@pytest.mark.parametrize("address", [("192.0.2.1", 443), ("10.255.255.1", 80)])
def test_no_connection_leaves_the_machine_while_it_runs(llm_server, address):
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError, match="network"):
        sock.connect(address)


def test_no_name_is_looked_up_off_the_machine_while_it_runs(llm_server):
    with pytest.raises(socket.gaierror, match="off the machine"):
        socket.getaddrinfo("api.openai.com", 443)


def test_the_database_servers_name_may_still_be_looked_up(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *args, **kwargs: [("found", host)])
    with no_network(allowed_names=["db.internal"]):
        assert socket.getaddrinfo("db.internal", 5432) == [("found", "db.internal")]
        with pytest.raises(socket.gaierror):
            socket.getaddrinfo("example.org", 80)


def test_forty_calls_are_answered_at_once(llm_server):
    # Every reply waits until all 40 requests are in the server together: a server that could
    # not accept or serve that many connections at once would break the barrier.
    together = threading.Barrier(40, timeout=30)

    def reply(request):
        together.wait()
        return "true"

    llm_server.default = reply
    with ThreadPoolExecutor(40) as pool:
        answers = list(pool.map(lambda n: chat(llm_server, f"call {n}"), range(40)))
    assert [status for status, _, _ in answers] == [200] * 40
    assert len(llm_server.completions) == 40


def test_the_server_in_a_process_of_its_own_answers_its_text(llm_server, tmp_path):
    with llm_server_process(text="false", home=str(tmp_path)) as base_url:
        assert os.environ["LOOPBACK_BASE_URL"] == base_url != llm_server.base_url
        status, _, body = chat(SimpleNamespace(base_url=base_url), "Is it met?")
        assert status == 200 and answer_text(body) == "false"
        with socket.socket() as sock, pytest.raises(ConnectionRefusedError, match="network"):
            sock.connect(("192.0.2.1", 443))
    assert os.environ["LOOPBACK_BASE_URL"] == llm_server.base_url
    assert llm_server.requests == []
