"""Running the LLM judge on a study, end to end against the loopback OpenAI server: Inspect AI
makes the calls, the `.eval` log is kept and read back through the Inspect importer."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from core.prompting import CORRECTIVE_MESSAGE, PROBABILITY_REQUEST, AnswerStyle
from grading import services as grading
from grading.models import Study
from interchange.problem_text import problem_text
from judging.models import JudgeRun, JudgeVerdict
from judging.running import execute_run
from judging.runs import cancel_run, resume_run, start_run
from judging.units import study_units
from rubrics.models import Response
from rubrics.services import record_response
from tests.factories import demo_benchmark_and_graders, make_hook
from tests.llm_server import Reply, model_name, tokens

JUDGE = model_name("judge-run")


pytestmark = pytest.mark.usefixtures("judge_files")


def judged(study: Study, limit: int):
    return study_units(study, limit=limit)


def test_each_unit_is_judged_once_and_its_answer_is_stored_as_verdict_and_rationale(
    study, llm_server
):
    units = judged(study, 4)
    failing = units[1].unit.criterion
    llm_server.default = lambda request: "false" if failing in request.prompt else "true"
    hook = make_hook(events=["judge_run.finished"])
    run = execute_run(start_run(study, model=JUDGE, limit=4, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    (told,) = hook.deliveries.all()  # its webhook is told, once
    assert told.payload == {"run": run.pk, "study": study.pk, "status": "succeeded"}
    assert (run.calls_total, run.calls_done, run.errors, run.unparseable) == (4, 4, 0, 0)
    assert len(llm_server.completions) == 4
    prompts = [request.prompt for request in llm_server.completions]  # in any order
    for planned in units:
        assert any(planned.unit.task in p and planned.unit.criterion in p for p in prompts)
    assert all(request.body.get("temperature") == 0 for request in llm_server.completions)
    verdicts = {(v.response_id, v.criterion_version_id): v for v in run.verdicts.all()}
    assert {key: v.verdict for key, v in verdicts.items()} == {
        (u.response_pk, u.version_pk): u.unit.criterion != failing for u in units
    }
    assert {v.rationale for v in verdicts.values()} == {"true", "false"}
    assert run.total_tokens > 0 and run.input_tokens > 0 and run.duration > 0
    assert Path(run.log_path).is_file() and run.prompt.template.name == "reference-guided"
    assert Response.objects.count() == Response.objects.filter(task__isnull=False).count()


def test_a_run_asking_for_the_judge_s_probability_stores_it_with_the_verdict(study, llm_server):
    units = judged(study, 3)
    doubtful, hostile = units[0].unit.criterion, units[1].unit.criterion

    def answer(request) -> str:
        if doubtful in request.prompt:
            return "probability: 0.55\ntrue"
        if hostile in request.prompt:
            return "probability: 80%\nfalse"  # the verdict is kept, not the probability
        return "Probability: 0.02\nfalse"

    llm_server.default = answer
    run = execute_run(
        start_run(study, model=JUDGE, limit=3, ask_probability=True, by=None, enqueue=False).pk
    )
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert run.unparseable == 0 and run.parameters["ask_probability"] is True
    assert all(PROBABILITY_REQUEST in r.prompt for r in llm_server.completions)
    stored = {
        (v.response_id, v.criterion_version_id): (v.verdict, v.pass_probability)
        for v in run.verdicts.all()
    }
    assert stored == {
        (u.response_pk, u.version_pk): {doubtful: (True, 0.55), hostile: (False, None)}.get(
            u.unit.criterion, (False, 0.02)
        )
        for u in units
    }


def test_a_run_not_asking_for_a_probability_sends_the_prompt_as_before(study, llm_server):
    llm_server.default = lambda request: "probability: 0.9\ntrue"
    run = execute_run(start_run(study, model=JUDGE, limit=1, by=None, enqueue=False).pk)
    assert "ask_probability" not in run.parameters
    assert PROBABILITY_REQUEST not in llm_server.completions[0].prompt
    (verdict,) = run.verdicts.all()
    assert (verdict.verdict, verdict.pass_probability) == (None, None)  # unreadable as before


@pytest.mark.parametrize("probability", [1.5, -0.01])
def test_the_database_refuses_a_stated_probability_out_of_0_1(study, probability):
    unit = judged(study, 1)[0]
    run = JudgeRun.objects.create(judge_model=JUDGE)
    with pytest.raises(IntegrityError), transaction.atomic():
        JudgeVerdict.objects.create(
            run=run,
            response_id=unit.response_pk,
            criterion_version_id=unit.version_pk,
            verdict=True,
            pass_probability=probability,
        )


def test_an_unparseable_answer_is_asked_again_then_kept_as_no_verdict(study, llm_server):
    llm_server.default = lambda request: "I think it mostly does."
    run = execute_run(start_run(study, model=JUDGE, limit=1, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    (verdict,) = run.verdicts.all()
    assert verdict.verdict is None and run.unparseable == 1
    assert "[attempt 4]\nI think it mostly does." in verdict.rationale
    retries = llm_server.completions[1:]
    assert len(retries) == 3
    assert all(r.body["temperature"] == 0.2 for r in retries)
    assert CORRECTIVE_MESSAGE[AnswerStyle.BINARY] in retries[-1].prompt


def test_an_answer_read_on_a_retry_is_the_verdict(study, llm_server):
    llm_server.queue("Yes, clearly.", "true")
    run = execute_run(start_run(study, model=JUDGE, limit=1, by=None, enqueue=False).pk)
    (verdict,) = run.verdicts.all()
    assert verdict.verdict is True and run.unparseable == 0


def test_a_rate_limited_and_a_slow_call_are_waited_for(study, llm_server):
    llm_server.queue(Reply.rate_limited(retry_after=0.1), Reply(text="false", delay=0.5))
    run = execute_run(start_run(study, model=JUDGE, limit=3, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert run.verdicts.count() == 3 and run.verdicts.filter(verdict=False).count() == 1
    assert len(llm_server.completions) == 4


def test_a_cancelled_run_stops_and_running_it_again_pays_only_for_the_calls_not_made(
    study, llm_server
):
    llm_server.default = lambda request: Reply(text="true", delay=0.2)
    run = start_run(study, model=JUDGE, limit=12, max_connections=1, by=None, enqueue=False)

    def cancel_once(done, total):
        if done >= 2 and JudgeRun.objects.get(pk=run.pk).status == JudgeRun.Status.RUNNING:
            cancel_run(run, by=None)

    run = execute_run(run.pk, on_progress=cancel_once)
    assert run.status == JudgeRun.Status.CANCELLED
    made = len(llm_server.completions)
    assert 2 <= made < 12 and not run.verdicts.exists()
    run = execute_run(resume_run(run, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert run.verdicts.count() == 12
    assert len(llm_server.completions) == 12  # the calls made before came from the cache
    # The tokens paid add up over both attempts, the cached answers not counted again.
    assert run.input_tokens == sum(tokens(r.prompt) for r in llm_server.completions)


def test_the_command_runs_a_named_prompt_version_and_reports(study, llm_server, capsys):
    call_command(
        "run_judge", str(study.pk), "--model", JUDGE, "--prompt", "critique-then-verdict@1",
        "--limit", "2", "--epochs", "2",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "4 calls with critique-then-verdict@1" in out and "Finished: 4 verdicts" in out
    run = JudgeRun.objects.get()
    assert run.prompt.template.name == "critique-then-verdict"
    assert set(run.verdicts.values_list("epoch", flat=True)) == {1, 2}
    assert JudgeVerdict.objects.filter(verdict=True).count() == 4  # "true" alone is the last line


def test_responses_whose_ids_repeat_across_tasks_are_each_judged(
    db, settings, tmp_path, llm_server
):
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"
    framework, graders = demo_benchmark_and_graders(1)
    by_task = {}
    for response in Response.objects.order_by("pk"):
        by_task.setdefault(response.task_id, response)
    first, second = list(by_task.values())[:2]
    Response.objects.filter(pk__in=[first.pk, second.pk]).update(external_id="tutor::e1")
    study = grading.create_study(
        name="Ids", framework=framework, responses=[first, second], annotators=graders,
        overlap=1, seed=1,
    )  # fmt: skip
    run = execute_run(start_run(study, model=JUDGE, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert set(run.verdicts.values_list("response_id", flat=True)) == {first.pk, second.pk}


def test_a_run_that_stops_on_an_error_ends_failed_saying_why(study, llm_server):
    run = start_run(study, model=JUDGE, limit=2, by=None, enqueue=False)

    def fail(done, total):
        raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError):
        execute_run(run.pk, on_progress=fail)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED
    assert "the database went away" in problem_text(run.problems[0])


def test_a_turn_level_criterion_is_judged_on_each_tutor_turn_seeing_the_dialogue_up_to_it(
    db, settings, tmp_path, llm_server
):
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"
    framework, graders = demo_benchmark_and_graders(1)
    dialogue = Response.objects.get(task__key="903", model_name="basalt-chat-7b")
    study = grading.create_study(
        name="Dialogue judge", framework=framework, responses=[dialogue], annotators=graders,
        overlap=1, seed=1,
    )  # fmt: skip
    short = "Keeps this turn to one or two short sentences."
    last = "Want to try it on me?"  # only in the third tutor turn

    def script(request):
        return "false" if short in request.prompt and last in request.prompt else "true"

    llm_server.default = script
    run = execute_run(start_run(study, model=JUDGE, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    on_short = [r.prompt for r in llm_server.completions if short in r.prompt]
    assert len(on_short) == 3  # one call per tutor turn
    assert sum(last in p for p in on_short) == 1  # the judge sees the dialogue up to its turn
    verdicts = {
        v.criterion_version.wording: v
        for v in run.verdicts.per_response().select_related("criterion_version")
        if v.criterion_version.per_turn
    }
    assert len(verdicts) == 4  # one verdict per turn-level criterion, on the dialogue
    turns = run.verdicts.per_turn().filter(criterion_version__wording=short)
    assert sorted((v.turn.index, v.verdict) for v in turns.select_related("turn")) == [
        (1, True),
        (3, True),
        (5, False),
    ]  # and each tutor turn's verdict beside it
    assert verdicts[short].verdict is False  # every turn: the last one fails
    assert verdicts[short].rationale == "Turn 2: true\nTurn 4: true\nTurn 6: false"
    recasts = "Recasts the learner's error instead of correcting it explicitly."
    assert verdicts[recasts].verdict is True  # a share of 50 %


def test_a_run_judges_the_version_its_study_grades_after_the_response_changed(study, llm_server):
    graded = study.items.order_by("pk").first().response  # the run's first units judge it
    newer, _ = record_response(
        graded.task,
        graded.model_name,
        text="A rewritten answer nobody graded.",
        external_id=graded.external_id,
        model_family=graded.model_family,
        model_version=graded.model_version,
    )
    assert (newer.version, Response.objects.get(pk=graded.pk).is_current) == (2, False)
    assert {unit.response_version for unit in study_units(study)} == {1}

    run = execute_run(start_run(study, model=JUDGE, limit=2, by=None, enqueue=False).pk)

    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert set(run.verdicts.values_list("response_id", flat=True)) == {graded.pk}
    prompts = [request.prompt for request in llm_server.completions]
    assert len(prompts) == 2 and not any("rewritten answer" in p for p in prompts)
