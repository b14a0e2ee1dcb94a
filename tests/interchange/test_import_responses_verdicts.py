"""import_responses and import_verdicts on the database: matching, idempotence, every error,
all or nothing."""

import json
import zipfile

import pytest

from core.formats.responses import ResponseRecord
from core.formats.synthetic import synthetic_responses, synthetic_verdicts, write_jsonl
from interchange.importers import import_l2bench, import_responses
from judging.models import JudgeRun, JudgeVerdict
from judging.verdict_import import import_verdicts
from rubrics.models import Response, RubricItem
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import row_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def tasks(tmp_path, starter_framework):
    records = generated(4)
    assert import_l2bench(benchmark_folder(tmp_path / "bench", records), starter_framework).ok
    return records


def jsonl(path, objects):
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def test_responses_import_then_reimport_changes_nothing(tmp_path, starter_framework, tasks):
    path = write_jsonl(tmp_path / "r.jsonl", synthetic_responses(tasks, ["m-a", "m-b"], epochs=2))
    first = import_responses(path, starter_framework)
    assert str(first.counts["responses"]) == "16 created, 0 updated, 0 unchanged"
    before = row_counts()
    again = import_responses(path, starter_framework)
    assert str(again.counts["responses"]) == "0 created, 0 updated, 16 unchanged"
    assert row_counts() == before


def test_a_changed_response_text_updates_the_same_row(tmp_path, starter_framework, tasks):
    key = tasks[0].task_key
    import_responses(
        jsonl(
            tmp_path / "a.jsonl", [{"task_key": key, "model": "m", "id": "r1", "response": "Old"}]
        ),
        starter_framework,
    )
    report = import_responses(
        jsonl(
            tmp_path / "b.jsonl",
            [
                {
                    "task_key": key,
                    "model": "m",
                    "id": "r1",
                    "turns": [
                        {"role": "user", "content": "Hi"},
                        {"role": "assistant", "content": "New"},
                    ],
                }
            ],
        ),
        starter_framework,
    )
    assert str(report.counts["responses"]) == "0 created, 1 updated, 0 unchanged"
    response = Response.objects.get()
    assert response.kind == "conversation"
    assert [t.content for t in response.turns.all()] == ["Hi", "New"]


def test_responses_without_an_id_are_told_apart_by_model_version_and_epoch(
    tmp_path, starter_framework, tasks
):
    key = tasks[0].task_key
    rows = [
        {"task_key": key, "model": "m", "epoch": 1, "response": "one"},
        {"task_key": key, "model": "m", "epoch": 2, "response": "two"},
        {"task_key": key, "model": "m", "version": "2", "epoch": 1, "response": "three"},
    ]
    assert import_responses(jsonl(tmp_path / "r.jsonl", rows), starter_framework).ok
    assert sorted(Response.objects.values_list("external_id", flat=True)) == [
        "m:2:e1",
        "m::e1",
        "m::e2",
    ]


def test_unknown_task_and_bad_types_are_reported_and_nothing_is_written(
    tmp_path, starter_framework, tasks
):
    rows = [
        {"task_key": tasks[0].task_key, "model": "m", "response": "fine"},
        {"task_key": "no-such-task", "model": "m", "response": "x"},
        {"task_key": tasks[0].task_key, "model": "m", "epoch": "one", "response": "x"},
    ]
    before = row_counts()
    report = import_responses(jsonl(tmp_path / "r.jsonl", rows), starter_framework)
    assert report.problem_lines() == [
        "r.jsonl: line 2: field 'task_key': no task 'no-such-task' in framework 'l2bench-starter'",
        "r.jsonl: line 3: field 'epoch': expected an integer, got a string",
    ]
    assert row_counts() == before


def verdict_files(tmp_path, tasks):
    responses = synthetic_responses(tasks, ["m-a"])
    write_jsonl(tmp_path / "r.jsonl", responses)
    return tmp_path / "r.jsonl", write_jsonl(
        tmp_path / "v.jsonl", synthetic_verdicts(tasks, responses, "judge-x")
    )


def test_verdicts_are_stored_against_the_published_criterion_versions(
    tmp_path, starter_framework, tasks
):
    responses, verdicts = verdict_files(tmp_path, tasks)
    import_responses(responses, starter_framework)
    report = import_verdicts(verdicts, starter_framework)
    assert report.ok, report.problem_lines()
    total = sum(len(t.criteria) for t in tasks)
    assert JudgeVerdict.objects.count() == total
    assert JudgeRun.objects.get().judge_model == "judge-x"
    published = set(RubricItem.objects.values_list("criterion_version", flat=True))
    published_tasks = {t.task_key for t in tasks if t.is_published}
    for verdict in JudgeVerdict.objects.select_related("response__task"):
        if verdict.response.task.key in published_tasks:
            assert verdict.criterion_version_id in published
    before = row_counts()
    again = import_verdicts(verdicts, starter_framework)
    assert str(again.counts["verdicts"]) == f"0 created, 0 updated, {total} unchanged"
    assert row_counts() == before


def test_a_stated_pass_probability_is_stored_and_a_new_one_updates_it(
    tmp_path, starter_framework, tasks
):
    responses, verdicts = verdict_files(tmp_path, tasks)
    import_responses(responses, starter_framework)
    lines = [json.loads(line) for line in verdicts.read_text(encoding="utf-8").splitlines()]
    stated = jsonl(verdicts, [{**lines[0], "pass_probability": 0.3}, *lines[1:]])
    assert import_verdicts(stated, starter_framework).ok
    criterion = lines[0]["criterion_id"]
    found = JudgeVerdict.objects.get(criterion_version__criterion__code=criterion, turn=None)
    assert found.pass_probability == 0.3
    assert JudgeVerdict.objects.filter(pass_probability__isnull=False).count() == 1
    again = import_verdicts(
        jsonl(verdicts, [{**lines[0], "pass_probability": 0.9}, *lines[1:]]), starter_framework
    )
    assert str(again.counts["verdicts"]).startswith("0 created, 1 updated")
    found.refresh_from_db()
    assert found.pass_probability == 0.9


def test_missing_criterion_unknown_response_and_wrong_weight_are_problems(
    tmp_path, starter_framework, tasks
):
    responses, _ = verdict_files(tmp_path, tasks)
    import_responses(responses, starter_framework)
    task = tasks[0]
    own = task.task_criteria[0]
    rows = [
        {
            "task_key": task.task_key,
            "model": "m-a",
            "criterion_id": own.id,
            "verdict": True,
            "judge_model": "j",
        },
        {
            "task_key": task.task_key,
            "model": "m-a",
            "criterion_id": "01a-99",
            "verdict": True,
            "judge_model": "j",
        },
        {
            "task_key": task.task_key,
            "model": "nobody",
            "criterion_id": own.id,
            "verdict": True,
            "judge_model": "j",
        },
        {
            "task_key": task.task_key,
            "model": "m-a",
            "criterion_id": own.id,
            "verdict": "fail",
            "judge_model": "j",
            "weight": own.weight + 1,
            "run_id": "2",
        },
        {
            "task_key": task.task_key,
            "model": "m-a",
            "criterion_id": tasks[1].task_criteria[0].id,
            "verdict": True,
            "judge_model": "j",
        },
        {"response_id": "missing", "criterion_id": own.id, "verdict": True, "judge_model": "j"},
    ]
    before = row_counts()
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", rows), starter_framework)
    lines = report.problem_lines()
    assert len(lines) == 5, lines
    assert (
        "v.jsonl: line 2: field 'criterion_id': "
        "no criterion '01a-99' in framework 'l2bench-starter'" in lines
    )
    assert any(
        line.startswith("v.jsonl: line 3: field 'model': no response of model 'nobody'")
        for line in lines
    )
    assert any(
        line.startswith("v.jsonl: line 4: field 'weight': the judge saw weight") for line in lines
    )
    assert any(
        "line 5: field 'criterion_id'" in line and "is not in the rubric of task" in line
        for line in lines
    )
    assert "v.jsonl: line 6: field 'response_id': no response with id 'missing'" in lines
    assert row_counts() == before


def test_an_eval_log_brings_its_responses_and_verdicts(tmp_path, starter_framework, tasks):
    task = tasks[0]
    header = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "l2",
            "run_id": "run-1",
            "model": "prov/model-a",
            "model_roles": {"grader": {"model": "prov/judge"}},
        },
    }
    sample = {
        "id": task.task_key,
        "epoch": 1,
        "output": {"completion": "An answer."},
        "scores": {
            "s": {
                "value": 1,
                "metadata": {
                    "scoring_results": [
                        {"criterion_id": c.id, "weight": c.weight, "judgement": True}
                        for c in task.criteria
                    ]
                },
            }
        },
    }
    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", json.dumps(header))
        archive.writestr(f"samples/{task.task_key}_epoch_1.json", json.dumps(sample))
    report = import_verdicts(path, starter_framework)
    assert report.ok, report.problem_lines()
    assert report.counts["responses"].created == 1
    assert JudgeVerdict.objects.filter(run__judge_model="prov/judge", verdict=True).count() == len(
        task.criteria
    )
    assert import_verdicts(path, starter_framework, dry_run=True).counts[
        "verdicts"
    ].unchanged == len(task.criteria)


def test_dry_run_of_responses_writes_nothing(tmp_path, starter_framework, tasks):
    path = write_jsonl(tmp_path / "r.jsonl", [ResponseRecord(tasks[0].task_key, "m", response="x")])
    before = row_counts()
    report = import_responses(path, starter_framework, dry_run=True)
    assert report.counts["responses"].created == 1
    assert row_counts() == before


def test_a_nul_in_a_file_is_a_problem_at_its_line_and_field_not_a_database_error(
    tmp_path, starter_framework, tasks
):
    """PostgreSQL refuses the NUL character in text: the import names where it is instead."""
    rows = [
        {"task_key": tasks[0].task_key, "model": "m", "response": "fine"},
        {"task_key": tasks[0].task_key, "model": "m", "epoch": 2, "response": "fi\u0000ne"},
    ]
    before = row_counts()
    report = import_responses(jsonl(tmp_path / "r.jsonl", rows), starter_framework)
    assert report.problem_lines() == [
        "r.jsonl: line 2: field 'response': "
        "holds the NUL character (\\u0000), which the database cannot store"
    ]
    assert row_counts() == before
