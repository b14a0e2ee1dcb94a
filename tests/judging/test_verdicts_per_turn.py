"""A turn-level criterion judged on each tutor turn of a dialogue: the importer keeps every
turn's verdict beside the response's verdict that folds them by the criterion's rule, and a
re-import updates both in place."""

import json

import pytest

from judging.models import JudgeVerdict
from judging.verdict_import import import_verdicts
from tests.factories import framework, published_task, response

pytestmark = pytest.mark.django_db


@pytest.fixture
def dialogue():
    """A six-turn dialogue (tutor turns 1, 3 and 5) of a task whose first criterion is
    judged per tutor turn, every turn having to pass."""
    task = published_task(turn_rule="all")
    answer = response(task, turns=6)
    answer.external_id = "dlg-1"
    answer.save()
    return answer


def lines(path, verdicts, code):
    """A verdicts file: one line per (turn, verdict) on criterion `code` of dialogue dlg-1, and
    one verdict on the whole dialogue for its second criterion."""
    objects = [
        {"response_id": "dlg-1", "criterion_id": code, "verdict": verdict, "turn": turn}
        | {"judge_model": "judge-a", "run_id": "r1", "rationale": f"said {verdict}"}
        for turn, verdict in verdicts
    ]
    objects.append(
        {"response_id": "dlg-1", "criterion_id": code[:-2] + "02", "verdict": True}
        | {"judge_model": "judge-a", "run_id": "r1"}
    )
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def code_of(answer):
    return f"{answer.task.key}-01"


def test_each_turn_verdict_is_stored_beside_the_folded_verdict_of_the_response(tmp_path, dialogue):
    path = lines(tmp_path / "v.jsonl", [(1, True), (3, True), (5, False)], code_of(dialogue))
    report = import_verdicts(path, framework())
    assert report.ok, report.problem_lines()
    assert str(report.counts["verdicts"]) == "2 created, 0 updated, 0 unchanged"
    assert str(report.counts["turn verdicts"]) == "3 created, 0 updated, 0 unchanged"
    whole = {
        v.criterion_version.criterion.code: v.verdict
        for v in JudgeVerdict.objects.per_response().select_related("criterion_version__criterion")
    }
    assert whole == {code_of(dialogue): False, f"{dialogue.task.key}-02": True}  # all turns
    turns = JudgeVerdict.objects.per_turn().select_related("turn").order_by("turn__index")
    assert [(v.turn.index, v.verdict, v.rationale) for v in turns] == [
        (1, True, "said True"),
        (3, True, "said True"),
        (5, False, "said False"),
    ]
    assert {v.turn.response_id for v in turns} == {dialogue.pk}


def test_a_reimport_changes_nothing_and_a_changed_turn_updates_in_place(tmp_path, dialogue):
    code = code_of(dialogue)
    path = lines(tmp_path / "v.jsonl", [(1, True), (3, True), (5, False)], code)
    assert import_verdicts(path, framework()).ok
    before = {v.pk: v.turn_id for v in JudgeVerdict.objects.all()}
    again = import_verdicts(path, framework())
    assert str(again.counts["verdicts"]) == "0 created, 0 updated, 2 unchanged"
    assert str(again.counts["turn verdicts"]) == "0 created, 0 updated, 3 unchanged"
    changed = lines(tmp_path / "w.jsonl", [(1, True), (3, True), (5, True)], code)
    report = import_verdicts(changed, framework())
    assert str(report.counts["turn verdicts"]) == "0 created, 1 updated, 2 unchanged"
    assert str(report.counts["verdicts"]) == "0 created, 1 updated, 1 unchanged"
    assert {v.pk: v.turn_id for v in JudgeVerdict.objects.all()} == before  # the same rows
    folded = JudgeVerdict.objects.per_response().get(criterion_version__criterion__code=code)
    assert folded.verdict is True


def test_a_turn_that_is_not_a_tutor_turn_is_a_problem_and_nothing_is_written(tmp_path, dialogue):
    path = lines(tmp_path / "v.jsonl", [(1, True), (2, True)], code_of(dialogue))  # 2: learner
    report = import_verdicts(path, framework())
    assert [p.field for p in report.problems] == ["turn"]
    assert "no tutor turn 2" in report.problems[0].message
    assert not JudgeVerdict.objects.exists()


def test_a_negative_turn_is_refused_by_the_reader(tmp_path, dialogue):
    path = lines(tmp_path / "v.jsonl", [(-1, True)], code_of(dialogue))
    report = import_verdicts(path, framework())
    assert any(p.field == "turn" and "at least 0" in p.message for p in report.problems)
    assert not JudgeVerdict.objects.exists()
