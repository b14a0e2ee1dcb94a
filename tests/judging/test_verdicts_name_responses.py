"""A verdict names its response by `response_id`, or by `task_key` + `model` (+ `epoch`), and
either way finds responses imported with their own ids or without: ambiguous and missing ones
are refused with file, line and field."""

import json

import pytest

from interchange.importers import import_l2bench, import_responses
from judging.models import JudgeVerdict
from judging.verdict_import import import_verdicts
from rubrics.models import Response
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import row_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def task(tmp_path, starter_framework):
    records = generated(2)
    assert import_l2bench(benchmark_folder(tmp_path / "bench", records), starter_framework).ok
    return records[0]


def jsonl(path, objects):
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def responses(tmp_path, task, *, with_ids: bool):
    lines = [
        {"task_key": task.task_key, "model": "m-a", "epoch": epoch, "response": f"Answer {epoch}"}
        | ({"id": f"run7-{task.task_key}-{epoch}"} if with_ids else {})
        for epoch in (1, 2)
    ]
    return jsonl(tmp_path / "r.jsonl", lines)


def verdict(task, **naming):
    criterion = task.task_criteria[0]
    return {"criterion_id": criterion.id, "verdict": "pass", "judge_model": "j"} | naming


@pytest.mark.parametrize("with_ids", [True, False])
def test_a_verdict_naming_task_model_and_epoch_finds_the_response(
    tmp_path, starter_framework, task, with_ids
):
    assert import_responses(responses(tmp_path, task, with_ids=with_ids), starter_framework).ok
    lines = [
        verdict(task, task_key=task.task_key, model="m-a", epoch=2),
        verdict(task, task_key=task.task_key, model="m-a"),  # epoch 1 by default
    ]
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", lines), starter_framework)
    assert report.ok, report.problem_lines()
    found = {v.epoch: v.response.text for v in JudgeVerdict.objects.select_related("response")}
    assert found == {1: "Answer 1", 2: "Answer 2"}


def test_a_verdict_naming_the_response_id_finds_a_response_imported_with_it(
    tmp_path, starter_framework, task
):
    assert import_responses(responses(tmp_path, task, with_ids=True), starter_framework).ok
    line = verdict(task, response_id=f"run7-{task.task_key}-2", epoch=2)
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", [line]), starter_framework)
    assert report.ok, report.problem_lines()
    assert JudgeVerdict.objects.get().response.text == "Answer 2"


def test_responses_keep_the_epoch_their_file_gave(tmp_path, starter_framework, task):
    assert import_responses(responses(tmp_path, task, with_ids=True), starter_framework).ok
    assert dict(Response.objects.values_list("external_id", "epoch")) == {
        f"run7-{task.task_key}-1": 1,
        f"run7-{task.task_key}-2": 2,
    }


def test_two_responses_of_one_model_task_and_epoch_are_ambiguous(tmp_path, starter_framework, task):
    for name in ("first-run", "second-run"):  # two runs, imported one after the other
        line = {"task_key": task.task_key, "model": "m-a", "id": name, "response": name}
        assert import_responses(jsonl(tmp_path / f"{name}.jsonl", [line]), starter_framework).ok
    before = row_counts()
    line = verdict(task, task_key=task.task_key, model="m-a")
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", [line]), starter_framework)
    assert report.problem_lines() == [
        f"v.jsonl: line 1: field 'model': several responses of model 'm-a' to task "
        f"'{task.task_key}' in epoch 1 (ids 'first-run', 'second-run'): name one by response_id"
    ]
    assert row_counts() == before


def test_a_missing_epoch_is_refused_naming_the_line_and_field(tmp_path, starter_framework, task):
    assert import_responses(responses(tmp_path, task, with_ids=True), starter_framework).ok
    line = verdict(task, task_key=task.task_key, model="m-a", epoch=3)
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", [line]), starter_framework)
    assert report.problem_lines() == [
        f"v.jsonl: line 1: field 'model': no response of model 'm-a' to task '{task.task_key}' "
        "in epoch 3: import the responses first, or name them by response_id"
    ]


def test_a_reimport_moving_a_response_to_another_epoch_moves_what_verdicts_find(
    tmp_path, starter_framework, task
):
    first = [{"task_key": task.task_key, "model": "m-a", "id": "r1", "response": "x"}]
    assert import_responses(jsonl(tmp_path / "r.jsonl", first), starter_framework).ok
    moved = [first[0] | {"epoch": 4}]
    assert import_responses(jsonl(tmp_path / "r2.jsonl", moved), starter_framework).ok
    assert Response.objects.get().epoch == 4
    line = verdict(task, task_key=task.task_key, model="m-a", epoch=4)
    assert import_verdicts(jsonl(tmp_path / "v.jsonl", [line]), starter_framework).ok
