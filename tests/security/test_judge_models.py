"""A judge calls only the providers the deployment allows (JUDGE_ALLOWED_PROVIDERS), and no call
or run holds the worker for ever (JUDGE_CALL_TIMEOUT, JUDGE_RUN_TIMEOUT).

`ollama/...` sent the prompts to a port of the worker's own machine and `llama-cpp-python/x`
held the only worker for 222 s on one call: only a `/` was checked."""

import time

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.roles import Role
from grading.models import Study
from interchange.problem_text import problem_text
from judging.models import JudgeConfig, JudgeRun, PromptVersion
from judging.running import execute_run
from judging.runs import resume_run, start_run
from judging.services import default_prompt, save_config
from tests.factories import demo_study
from tests.llm_server import Reply, model_name

pytestmark = pytest.mark.django_db
LOCAL_PROVIDERS = ["ollama/llama3.1", "llama-cpp-python/x", "hf/gpt2", "vllm/m", "mockllm/model"]


@pytest.fixture(scope="module")
def built_study(module_db) -> int:
    return demo_study(2).pk


@pytest.fixture
def study(built_study, settings, tmp_path) -> Study:
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"
    return Study.objects.get(pk=built_study)


@pytest.mark.parametrize("model", LOCAL_PROVIDERS)
def test_the_run_form_refuses_a_provider_the_server_does_not_allow(study, client_as, model):
    answer = client_as(Role.MAINTAINER).post(
        reverse("judging:judge", args=[study.pk]),
        {"model": model, "prompt": PromptVersion.objects.first().pk, "epochs": 1,
         "max_connections": 1},
    )  # fmt: skip
    assert answer.status_code == 422
    assert "calls a provider this server does not allow" in answer.text
    assert "openai, anthropic, google, openai-api" in answer.text
    assert not JudgeRun.objects.exists() and not JudgeConfig.objects.filter(model=model).exists()


def test_the_command_refuses_a_provider_the_server_does_not_allow(study):
    with pytest.raises(CommandError, match=r"'ollama/llama3\.1' calls a provider this server"):
        call_command("run_judge", str(study.pk), "--model", "ollama/llama3.1", "--queue")
    assert not JudgeRun.objects.exists()


@pytest.mark.parametrize(
    ("allowed", "model", "ok"),
    [
        (["openai-api"], "openai-api/loopback/judge", True),
        (["openai-api/local"], "openai-api/loopback/judge", False),
        (["openai-api/local"], "openai-api/local/llama3.1", True),
        (["openai"], "openai-api/loopback/judge", False),
        (["anthropic", "ollama"], "ollama/llama3.1", True),
    ],
)
def test_an_entry_allows_a_provider_or_one_of_its_services(settings, allowed, model, ok):
    settings.JUDGE_ALLOWED_PROVIDERS = allowed
    try:
        save_config(model=model, prompt=default_prompt(), by=None)
    except ValidationError:
        assert not ok
    else:
        assert ok


def test_a_saved_configuration_of_a_provider_no_longer_allowed_is_not_run(study, settings):
    config = save_config(model=model_name("judge-x"), prompt=default_prompt(), by=None)
    settings.JUDGE_ALLOWED_PROVIDERS = ["anthropic"]
    with pytest.raises(ValidationError, match="calls a provider this server does not allow"):
        start_run(study, config=config, limit=1, by=None, enqueue=False)
    assert not JudgeRun.objects.exists()


def test_the_admin_refuses_a_configuration_of_a_provider_not_allowed(db):
    config = JudgeConfig(name="local", model="ollama/llama3.1", prompt=default_prompt())
    with pytest.raises(ValidationError, match="does not allow"):
        config.full_clean()


def test_a_queued_run_whose_provider_is_no_longer_allowed_fails_without_a_call(
    study, settings, llm_server
):
    run = start_run(study, model=model_name("judge-x"), limit=1, by=None, enqueue=False)
    settings.JUDGE_ALLOWED_PROVIDERS = ["anthropic"]
    run = execute_run(run.pk)
    assert run.status == JudgeRun.Status.FAILED
    assert "no longer allows" in problem_text(run.problems[0])
    assert not llm_server.completions
    run.status = JudgeRun.Status.CANCELLED
    with pytest.raises(ValidationError, match="does not allow"):
        resume_run(run, by=None, enqueue=False)


def test_a_call_slower_than_the_call_timeout_is_abandoned(study, settings, llm_server):
    settings.JUDGE_CALL_TIMEOUT, settings.JUDGE_MAX_RETRIES = 1, 0
    llm_server.default = lambda request: Reply(text="true", delay=30)
    clock = time.monotonic()
    run = execute_run(
        start_run(study, model=model_name("slow"), limit=1, by=None, enqueue=False).pk
    )
    assert time.monotonic() - clock < 20  # Inspect's start-up included, on a loaded machine
    assert run.status == JudgeRun.Status.FAILED, [problem_text(p) for p in run.problems]
    assert run.errors == 1, [problem_text(p) for p in run.problems]
    assert "1 of 1 calls ended in an error" in problem_text(run.problems[0])
    assert not run.verdicts.exists()


def test_a_run_longer_than_the_run_timeout_is_stopped(study, settings, llm_server):
    settings.JUDGE_RUN_TIMEOUT, settings.JUDGE_CALL_TIMEOUT = 1, 30
    llm_server.default = lambda request: Reply(text="true", delay=3)
    run = start_run(
        study, model=model_name("slower"), limit=6, max_connections=1, by=None, enqueue=False
    )
    clock = time.monotonic()
    run = execute_run(run.pk)
    assert time.monotonic() - clock < 15  # the six calls one after the other take 18 s
    assert run.status == JudgeRun.Status.FAILED
    assert "took longer than 1 seconds (JUDGE_RUN_TIMEOUT)" in problem_text(run.problems[0])
    assert len(llm_server.completions) < 6 and not run.verdicts.exists()
