"""import_verdicts with the judge's 1-5 ratings: matched by question key, idempotent, all or
nothing."""

import json

import pytest

from accounts.roles import Role
from core.formats.synthetic import synthetic_responses, write_jsonl
from grading import services as grading
from grading.models import LikertItem
from interchange.importers import import_l2bench, import_responses
from judging.models import JudgeRating, JudgeVerdict
from judging.verdict_import import import_verdicts
from tests.factories import benchmark_folder, generated

pytestmark = pytest.mark.django_db


@pytest.fixture
def tasks(tmp_path, starter_framework, make_user):
    records = generated(3)
    assert import_l2bench(benchmark_folder(tmp_path / "bench", records), starter_framework).ok
    path = write_jsonl(tmp_path / "r.jsonl", synthetic_responses(records, ["m-a"]))
    assert import_responses(path, starter_framework).ok
    grading.create_study(
        name="Pilot",
        framework=starter_framework,
        responses=[],
        annotators=[make_user(Role.ANNOTATOR)],
    )
    return records


def rating(task_key, **changes):
    line = {"task_key": task_key, "model": "m-a", "question": "authenticity", "score": 4}
    return line | {"judge_model": "judge-x"} | changes


def jsonl(path, objects):
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def test_ratings_are_stored_by_question_and_a_reimport_changes_nothing(
    tmp_path, starter_framework, tasks
):
    rows = [rating(t.task_key, score=n + 2) for n, t in enumerate(tasks)]
    rows.append(rating(tasks[0].task_key, question="criteria-adequacy", score=1, rationale="Thin"))
    path = jsonl(tmp_path / "v.jsonl", rows)
    report = import_verdicts(path, starter_framework)
    assert report.ok, report.problem_lines()
    assert str(report.counts["judge ratings"]) == "4 created, 0 updated, 0 unchanged"
    stored = JudgeRating.objects.order_by("question", "value")
    assert [(r.question, r.value) for r in stored] == [
        ("authenticity", 2),
        ("authenticity", 3),
        ("authenticity", 4),
        ("criteria-adequacy", 1),
    ]
    assert JudgeRating.objects.get(question="criteria-adequacy").rationale == "Thin"
    assert JudgeVerdict.objects.count() == 0
    again = import_verdicts(path, starter_framework)
    assert str(again.counts["judge ratings"]) == "0 created, 0 updated, 4 unchanged"
    assert JudgeRating.objects.count() == 4


def test_a_changed_score_updates_the_same_row(tmp_path, starter_framework, tasks):
    key = tasks[0].task_key
    import_verdicts(jsonl(tmp_path / "a.jsonl", [rating(key, score=2)]), starter_framework)
    first = JudgeRating.objects.get()
    report = import_verdicts(jsonl(tmp_path / "b.jsonl", [rating(key, score=5)]), starter_framework)
    assert str(report.counts["judge ratings"]) == "0 created, 1 updated, 0 unchanged"
    assert JudgeRating.objects.get().pk == first.pk
    assert JudgeRating.objects.get().value == 5


def test_bad_score_unknown_question_and_duplicate_are_reported_and_nothing_is_written(
    tmp_path, starter_framework, tasks
):
    key = tasks[0].task_key
    rows = [
        rating(key),
        rating(key, score=7),
        rating(key, question="fluency"),
        rating(key, rationale="again"),
        rating(tasks[1].task_key, model="nobody"),
    ]
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", rows), starter_framework)
    assert report.problem_lines() == [
        "v.jsonl: line 2: field 'score': 7 is not a whole number from 1 to 5",
        "v.jsonl: line 3: field 'question': no rating question 'fluency' in a study of "
        "framework 'l2bench-starter'",
        "v.jsonl: line 4: a second rating for the same response, question, epoch, judge, "
        "prompt version and run (first at line 1)",
        f"v.jsonl: line 5: field 'model': no response of model 'nobody' to task "
        f"'{tasks[1].task_key}' in epoch 1: import the responses first, or name them by "
        "response_id",
    ]
    assert JudgeRating.objects.count() == 0


def test_a_question_key_no_study_asks_any_more_is_unknown(tmp_path, starter_framework, tasks):
    LikertItem.objects.filter(key="authenticity").update(key="realism")
    report = import_verdicts(
        jsonl(tmp_path / "v.jsonl", [rating(tasks[0].task_key)]), starter_framework
    )
    assert report.problem_lines() == [
        "v.jsonl: line 1: field 'question': no rating question 'authenticity' in a study of "
        "framework 'l2bench-starter'"
    ]


def test_a_nul_in_a_rating_is_a_problem_naming_line_and_field_and_nothing_is_written(
    tmp_path, starter_framework, tasks
):
    rows = [
        rating(tasks[0].task_key, rationale="fine"),
        rating(tasks[1].task_key, rationale="bad\x00byte"),
        rating(tasks[2].task_key, judge_model="judge\x00x"),
    ]
    report = import_verdicts(jsonl(tmp_path / "v.jsonl", rows), starter_framework)
    assert report.problem_lines() == [
        "v.jsonl: line 2: field 'rationale': holds the NUL character (\\u0000), which the "
        "database cannot store",
        "v.jsonl: line 3: field 'judge_model': holds the NUL character (\\u0000), which the "
        "database cannot store",
    ]
    assert JudgeRating.objects.count() == 0
