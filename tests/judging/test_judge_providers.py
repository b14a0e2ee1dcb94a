"""A judge run on each provider the judge ships with (Anthropic, Google, OpenAI), end to end:
our run (`judging.running`) -> Inspect AI's provider -> the provider's SDK -> a loopback
server speaking that provider's protocol (tests/provider_servers.py), and the verdicts stored
from the run's `.eval` log."""

import traceback

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelAPI
from inspect_ai.model import _model as inspect_model
from tenacity import wait_fixed

from core.prompting import CORRECTIVE_MESSAGE, AnswerStyle
from judging.models import JudgeRun
from judging.running import execute_run
from judging.runs import start_run
from judging.units import study_units
from tests.llm_server import Reply
from tests.provider_servers import API_KEY, OPENAI_RESPONSES_MODEL, PROVIDERS

pytestmark = pytest.mark.usefixtures("judge_files")


# The model each test runs, by the provider whose server answers it; OpenAI's twice, as Inspect
# calls chat completions for gpt-4.1 and the Responses API for the gpt-5 and o series.
MODELS = {name: provider.model for name, provider in PROVIDERS.items()}
MODELS["openai-responses"] = OPENAI_RESPONSES_MODEL
# The models Inspect sends no temperature for: Anthropic's API has none since its version
# 2026-10-21, and OpenAI's reasoning models always take 1.
NO_TEMPERATURE = {"anthropic", "openai-responses"}
# Where each model's calls go.
ROUTES = {
    "anthropic": "/v1/messages",
    "google": "/v1/models/gemini-2.5-flash:generateContent",
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
}


@pytest.fixture(autouse=True)
def short_backoff(monkeypatch):
    """Inspect's own wait before it asks again after a refused call (Google's calls, a Claude
    stream that failed midway), a tenth of a second: its own starts at 3 s whatever Retry-After
    says, and these tests count the calls, not the wait."""
    monkeypatch.setattr(ModelAPI, "retry_wait", lambda api: wait_fixed(0.1))


@pytest.fixture(autouse=True)
def plain_tracebacks(monkeypatch):
    """Inspect keeps a refused call's traceback in its log twice, as text and as rich renders
    it, which reads each frame's source file whole (Google's SDK: thousands of lines a frame):
    about a second of CPU a refusal. Here the text serves as both."""

    def as_text(kind, error, frames):
        text = "".join(traceback.format_exception(kind, error, frames))
        return text, text

    monkeypatch.setattr(inspect_model, "format_traceback", as_text)


@pytest.fixture(params=sorted(MODELS))
def provider(request, provider_servers):
    """A provider's name, its model string and its loopback server."""
    server = provider_servers[request.param.removesuffix("-responses")]
    return request.param, MODELS[request.param], server


def key(name, request) -> str:
    """The API key a request carried, where its protocol carries it."""
    headers = {header.lower(): value for header, value in request.headers.items()}
    if name == "google":
        return headers["x-goog-api-key"]
    return headers["authorization"].removeprefix("Bearer ")


def temperature(name, request) -> float | None:
    """The temperature a request asked for, if any."""
    config = request.body.get("generationConfig", {}) if name == "google" else request.body
    return config.get("temperature")


def run_judge(study, model, limit):
    return execute_run(start_run(study, model=model, limit=limit, by=None, enqueue=False).pk)


def test_each_answer_is_stored_as_the_verdict_of_its_unit(study, provider):
    name, model, server = provider
    units = study_units(study, limit=4)
    failing = units[1].unit.criterion
    server.default = lambda request: "false" if failing in request.prompt else "true"
    run = run_judge(study, model, limit=4)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert (run.calls_total, run.calls_done, run.errors, run.unparseable) == (4, 4, 0, 0)
    assert len(server.requests) == 4
    assert {r.path for r in server.requests} == {ROUTES[name]}
    assert {key(name, r) for r in server.requests} == {API_KEY}
    assert {temperature(name, r) for r in server.requests} == {
        None if name in NO_TEMPERATURE else 0
    }
    for planned in units:  # each unit's prompt was sent, in any order
        assert any(planned.unit.criterion in r.prompt for r in server.requests)
    verdicts = {(v.response_id, v.criterion_version_id): v.verdict for v in run.verdicts.all()}
    assert verdicts == {(u.response_pk, u.version_pk): u.unit.criterion != failing for u in units}
    assert {v.rationale for v in run.verdicts.all()} == {"true", "false"}
    assert run.output_tokens == 4 and run.input_tokens > 4
    assert read_eval_log(run.log_path, header_only=True).eval.model == model


def test_a_malformed_answer_is_asked_again_then_kept_as_no_verdict(study, provider):
    name, model, server = provider
    server.default = lambda request: "I think it mostly does."
    run = run_judge(study, model, limit=1)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    (verdict,) = run.verdicts.all()
    assert verdict.verdict is None and run.unparseable == 1
    assert "[attempt 4]\nI think it mostly does." in verdict.rationale
    _, *retries = server.requests
    assert len(retries) == 3
    assert {temperature(name, r) for r in retries} == {None if name in NO_TEMPERATURE else 0.2}
    assert CORRECTIVE_MESSAGE[AnswerStyle.BINARY] in retries[-1].prompt
    assert "I think it mostly does." in retries[-1].prompt  # the conversation goes on


def test_an_answer_read_on_a_retry_is_the_verdict(study, provider):
    _, model, server = provider
    server.queue("Yes, clearly.", "false")
    run = run_judge(study, model, limit=1)
    (verdict,) = run.verdicts.all()
    assert verdict.verdict is False and run.unparseable == 0
    assert len(server.requests) == 2


# What each protocol answers when the provider refuses a call for now: Anthropic's 429 and 529
# "overloaded", Gemini's 429 RESOURCE_EXHAUSTED and 503 UNAVAILABLE, OpenAI's 429 and 503.
BUSY = {"anthropic": 529, "google": 503, "openai": 503, "openai-responses": 503}


def test_a_rate_limited_and_an_overloaded_call_are_retried(study, provider):
    name, model, server = provider
    units = study_units(study, limit=2)
    criteria = [planned.unit.criterion for planned in units]
    refusals = {
        criteria[0]: Reply.rate_limited(retry_after=0.1),
        criteria[1]: Reply.overloaded(status=BUSY[name], retry_after=0.1),
    }

    def refuse_each_call_once(request):
        criterion = next(c for c in criteria if c in request.prompt)
        return refusals.pop(criterion, "false")

    server.default = refuse_each_call_once
    # Two connections: the two calls wait out their refusals together.
    run = execute_run(
        start_run(study, model=model, limit=2, max_connections=2, by=None, enqueue=False).pk
    )
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert (run.errors, run.unparseable) == (0, 0)
    assert [v.verdict for v in run.verdicts.all()] == [False, False]
    assert not refusals and len(server.requests) == 4  # each call answered after its refusal


def test_claude_overloaded_in_the_middle_of_its_stream_is_asked_again(study, provider_servers):
    # Inspect streams a Claude 4 model's calls, and Anthropic may say it is overloaded after
    # the stream has started (a 200, then an error event).
    server = provider_servers["anthropic"]
    server.queue(Reply.overloaded(mid_stream=True), "false")
    run = run_judge(study, MODELS["anthropic"], limit=1)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert [v.verdict for v in run.verdicts.all()] == [False] and run.errors == 0
    assert [r.body["stream"] for r in server.requests] == [True, True]
