"""A judge run's `.eval` log is a real Inspect AI log: `read_eval_log` (what `inspect view`
uses) reads its header, samples, scores and token counts; a failed call is a sample with its
error, and the run is not imported."""

import pytest
from inspect_ai.log import read_eval_log

from interchange.problem_text import problem_text
from judging.models import JudgeRun
from judging.running import execute_run, processes_for
from judging.runs import cancel_run, resume_run, start_run
from judging.units import study_units
from tests.llm_server import Reply, model_name

JUDGE = model_name("judge-log")


pytestmark = pytest.mark.usefixtures("judge_files")


def test_the_log_holds_each_call_with_its_messages_score_and_tokens(study, llm_server):
    llm_server.queue("Hard to say.", "false")  # the first call is asked twice
    run = start_run(
        study, model=JUDGE, limit=3, epochs=2, max_connections=1, by=None, enqueue=False
    )  # one at a time: the queued replies go to the first call
    run = execute_run(run.pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems

    log = read_eval_log(run.log_path)

    assert (log.status, log.eval.model, log.eval.run_id) == ("success", JUDGE, run.run_id)
    assert log.eval.metadata == {"judge_model": JUDGE, "prompt_version": run.prompt_version}
    assert log.eval.config.epochs == 2 and log.eval.model_generate_config.temperature == 0
    assert log.eval.model_generate_config.max_connections == 1
    assert (log.results.total_samples, log.results.completed_samples) == (6, 6)
    assert log.stats.model_usage[JUDGE].input_tokens == run.input_tokens > 0
    assert log.stats.model_usage[JUDGE].output_tokens == run.output_tokens > 0
    assert sorted((s.id, s.epoch) for s in log.samples) == sorted(
        (f"{u.response_pk}-{u.version_pk}", epoch)
        for u in study_units(study, limit=3)
        for epoch in (1, 2)
    )
    (asked_twice,) = [s for s in log.samples if len(s.messages) == 4]
    assert [m.role for m in asked_twice.messages] == ["user", "assistant", "user", "assistant"]
    assert asked_twice.metadata["answers"] == ["Hard to say.", "false"]
    (score,) = asked_twice.scores.values()
    assert (score.value, score.answer) == ("false", "false")
    (result,) = score.metadata["scoring_results"]
    assert (result["judgement"], result["attempts"]) == (False, 2)
    assert all(s.model_usage[JUDGE].total_tokens > 0 for s in log.samples)
    assert all(s.output.completion in {"true", "false"} for s in log.samples)


def test_a_call_that_fails_is_a_sample_with_its_error_and_nothing_is_imported(
    study, llm_server, settings
):
    settings.JUDGE_CALL_TIMEOUT, settings.JUDGE_MAX_RETRIES = 1, 0
    llm_server.queue(Reply(text="true", delay=5))  # past the call's timeout
    run = execute_run(start_run(study, model=JUDGE, limit=3, by=None, enqueue=False).pk)

    assert run.status == JudgeRun.Status.FAILED and not run.verdicts.exists()
    assert (run.errors, run.calls_done) == (1, 2)
    assert "1 of 3 calls ended in an error" in problem_text(run.problems[0])
    log = read_eval_log(run.log_path)
    assert (log.status, log.results.completed_samples) == ("error", 2)
    (failed,) = [s for s in log.samples if s.error]
    assert failed.scores is None and "Timeout" in failed.error.message


def test_a_large_run_spreads_its_calls_over_processes_into_one_log(study, llm_server, settings):
    settings.JUDGE_PROCESSES, settings.JUDGE_CALLS_PER_PROCESS = 2, 3
    failing = study_units(study, limit=6)[4].unit.criterion
    llm_server.default = lambda request: "false" if failing in request.prompt else "true"
    run = start_run(study, model=JUDGE, limit=6, by=None, enqueue=False)
    assert processes_for(run, run.calls_total) == 2

    run = execute_run(run.pk)

    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert (run.calls_done, len(llm_server.completions)) == (6, 6)
    assert list(run.verdicts.order_by("verdict").values_list("verdict", flat=True)) == [
        False, True, True, True, True, True,
    ]  # fmt: skip
    log = read_eval_log(run.log_path)
    assert (log.status, log.results.completed_samples, len(log.samples)) == ("success", 6, 6)
    assert (
        log.stats.model_usage[JUDGE].total_tokens
        == run.total_tokens
        == sum(s.model_usage[JUDGE].total_tokens for s in log.samples)
    )


def test_a_run_in_processes_stops_when_cancelled_and_resumes_from_the_cache(
    study, llm_server, settings
):
    settings.JUDGE_PROCESSES, settings.JUDGE_CALLS_PER_PROCESS = 2, 1
    llm_server.default = lambda request: Reply(text="true", delay=0.5)  # 3 s for the 12
    run = start_run(study, model=JUDGE, limit=12, max_connections=2, by=None, enqueue=False)

    def cancel_once(done, total):
        if done >= 2 and JudgeRun.objects.get(pk=run.pk).status == JudgeRun.Status.RUNNING:
            cancel_run(run, by=None)

    run = execute_run(run.pk, on_progress=cancel_once)
    assert run.status == JudgeRun.Status.CANCELLED
    assert 2 <= len(llm_server.completions) < 12 and not run.verdicts.exists()
    run = execute_run(resume_run(run, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert run.verdicts.count() == 12
    assert len(llm_server.completions) == 12  # the children share the cache
