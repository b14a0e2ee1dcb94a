"""Re-importing a graded response never rewrites what was graded: the importer (file, job,
command) makes a new version, says so, and a dry run lists the same without writing; verdicts
find the current version, or the version they name; exports name the version they hold."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import Role
from agreement.services import final_labels
from core.analysis.labels import COLUMNS, label_row
from grading.models import Grade, TurnGrade
from grading.services import create_study
from interchange import grades_export
from interchange.importers import import_responses
from interchange.models import ImportJob
from judging.models import JudgeVerdict
from judging.verdict_import import import_verdicts
from rubrics.models import Response
from tests import factories
from tests.interchange.db_helpers import row_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)]


@pytest.fixture
def study(graders):
    return factories.graded_imported_study(graders, name="Pilot study")


def line(task, **fields):
    values = {"task_key": task.key, "model": "model-a", "family": "family-a", "version": "1.0"}
    values |= {"id": "r1", "response": factories.TEXT_V1}
    return {k: v for k, v in (values | fields).items() if v is not None}


def jsonl(path, *objects):
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def graded_texts(study):
    """Every submitted grade of the study, with the text of the response it is attached to."""
    return sorted(
        (grade.pk, grade.assignment.study_item.response.text)
        for grade in Grade.objects.filter(assignment__study_item__study=study).select_related(
            "assignment__study_item__response"
        )
    )


def test_a_graded_response_imported_with_a_new_text_gets_a_new_version(study, tmp_path):
    item = study.items.get()
    graded = item.response
    before = graded_texts(study)
    other = factories.published_task(graded.task.framework)
    path = jsonl(
        tmp_path / "r.jsonl",
        line(other, id="fresh", response="Brand new."),
        line(graded.task, response="A different text."),
    )

    report = import_responses(path, graded.task.framework)

    assert report.ok, report.problem_lines()
    assert str(report.counts["responses"]) == "1 created, 1 updated, 0 unchanged"
    (found,) = report.new_versions
    assert found.as_json() == {
        "line": 2,
        "task_key": graded.task.key,
        "response_id": "r1",
        "version": 2,
        "previous_version": 1,
        "changed": ["text"],
        "studies": ["Pilot study"],
    }
    assert graded_texts(study) == before
    assert {text for _, text in before} == {factories.TEXT_V1}
    assert list(study.items.values_list("pk", "response_id")) == [(item.pk, graded.pk)]
    current = Response.objects.current().get(task=graded.task, external_id="r1")
    assert (current.version, current.text) == (2, "A different text.")


def test_a_dialogue_graded_turn_by_turn_imported_with_new_turns_gets_a_new_version(
    graders, tmp_path
):
    study = factories.graded_imported_study(graders, dialogue=True)
    graded = study.items.get().response
    turn_grades = list(
        TurnGrade.objects.filter(turn__response=graded).values_list("pk", "turn__content")
    )
    assert turn_grades
    turns = [{"role": "user", "content": "Help?"}, {"role": "assistant", "content": "Say hi."}]

    report = import_responses(
        jsonl(tmp_path / "r.jsonl", line(graded.task, response=None, turns=turns)),
        graded.task.framework,
    )

    assert report.ok, report.problem_lines()
    assert [v.changed for v in report.new_versions] == [("turns",)]
    assert (
        list(TurnGrade.objects.filter(turn__response=graded).values_list("pk", "turn__content"))
        == turn_grades
    )
    assert list(graded.turns.values_list("role", "content")) == list(factories.DIALOGUE_V1)
    current = Response.objects.current().get(external_id="r1")
    assert list(current.turns.values_list("content", flat=True)) == ["Help?", "Say hi."]


@pytest.mark.parametrize(
    ("key", "field", "value"),
    [("model", "model_name", "model-b"), ("family", "model_family", "family-b"),
     ("version", "model_version", "2.0")],
)  # fmt: skip
def test_a_graded_response_imported_with_another_model_gets_a_new_version(
    study, tmp_path, key, field, value
):
    graded = study.items.get().response
    before = graded_texts(study)

    report = import_responses(
        jsonl(tmp_path / "r.jsonl", line(graded.task, **{key: value})), graded.task.framework
    )

    assert [v.changed for v in report.new_versions] == [(field,)]
    graded.refresh_from_db()
    assert getattr(graded, field) != value and not graded.is_current
    assert getattr(Response.objects.current().get(external_id="r1"), field) == value
    assert graded_texts(study) == before


def test_an_unchanged_reimport_writes_nothing(study, tmp_path):
    graded = study.items.get().response
    path = jsonl(tmp_path / "r.jsonl", line(graded.task))
    before = row_counts()

    report = import_responses(path, graded.task.framework)

    assert str(report.counts["responses"]) == "0 created, 0 updated, 1 unchanged"
    assert report.new_versions == []
    assert row_counts() == before  # no row, no history event


def test_a_dry_run_lists_the_new_versions_and_writes_nothing(study, tmp_path):
    graded = study.items.get().response
    path = jsonl(tmp_path / "r.jsonl", line(graded.task, response="Changed."))
    before = row_counts()

    report = import_responses(path, graded.task.framework, dry_run=True)

    assert [(v.line, v.response_id, v.version, v.studies) for v in report.new_versions] == [
        (1, "r1", 2, ("Pilot study",))
    ]
    assert row_counts() == before
    assert Response.objects.get().text == factories.TEXT_V1


def test_the_command_names_every_new_version(study, tmp_path):
    graded = study.items.get().response
    path = jsonl(tmp_path / "r.jsonl", line(graded.task, response="Changed."))
    out = StringIO()

    call_command("import_responses", str(path), "--dry-run", stdout=out, verbosity=0)
    call_command("import_responses", str(path), stdout=out, verbosity=0)

    lines = out.getvalue().splitlines()
    key = graded.task.key
    assert lines == [
        "Responses that would get a new version (what was graded stays as it is):",
        f"  line 1: response 'r1' of task {key} would get version 2 (text changed); version 1 "
        "stays as it is, graded in study “Pilot study”",
        "responses: 0 created, 1 updated, 0 unchanged (dry run: nothing was written)",
        "Responses given a new version (what was graded stays as it was):",
        f"  line 1: response 'r1' of task {key} got version 2 (text changed); version 1 stays "
        "as it was, graded in study “Pilot study”",
        "responses: 0 created, 1 updated, 0 unchanged",
    ]


@pytest.mark.parametrize("dry_run", [False, True])
def test_the_job_page_lists_the_new_versions(
    study, tmp_path, settings, client_as, dry_run, django_capture_on_commit_callbacks
):
    settings.IMPORTS_ROOT = tmp_path / "imports"
    graded = study.items.get().response
    client = client_as(Role.MAINTAINER)
    content = json.dumps(line(graded.task, response="Changed.")).encode() + b"\n"
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("interchange:index"),
            {
                "kind": "responses",
                "framework": graded.task.framework.pk,
                "file": SimpleUploadedFile("answers.jsonl", content),
                **({"dry_run": "on"} if dry_run else {}),
            },
        )
    job = ImportJob.objects.get()
    assert job.status == "succeeded", job.problems
    assert job.new_versions == [
        {
            "line": 1,
            "task_key": graded.task.key,
            "response_id": "r1",
            "version": 2,
            "previous_version": 1,
            "changed": ["text"],
            "studies": ["Pilot study"],
        }
    ]
    html = client.get(reverse("interchange:job", args=[job.pk])).content.decode()
    title = "Responses that would get a new version" if dry_run else "Responses given a new version"
    assert title in html
    assert f"<td>1</td><td>{graded.task.key}</td><td><code>r1</code></td><td>1 → 2</td>" in html
    assert "<td>text</td><td>Pilot study</td>" in html
    assert Response.objects.count() == (1 if dry_run else 2)


# ----- verdicts find the current version, or the one they name ---------------------------------


def verdict(task, **fields):
    code = task.criteria.order_by("order").first().code
    values = {"criterion_id": code, "verdict": True, "judge_model": "judge-x", "rationale": "ok"}
    return values | fields


def changed(study, tmp_path):
    graded = study.items.get().response
    report = import_responses(
        jsonl(tmp_path / "r.jsonl", line(graded.task, response="Changed.")), graded.task.framework
    )
    assert report.ok and report.new_versions
    return graded, Response.objects.current().get(external_id="r1")


@pytest.mark.parametrize(
    "naming", ["id", "task_model_epoch"], ids=["by id", "by task, model and epoch"]
)
def test_a_verdict_is_stored_against_the_current_version(study, tmp_path, naming):
    graded, current = changed(study, tmp_path)
    name = (
        {"response_id": "r1"}
        if naming == "id"
        else {"task_key": graded.task.key, "model": "model-a", "epoch": 1}
    )
    path = jsonl(tmp_path / "v.jsonl", verdict(graded.task, **name))

    report = import_verdicts(path, graded.task.framework)

    assert report.ok, report.problem_lines()
    assert JudgeVerdict.objects.get().response_id == current.pk


def test_a_verdict_naming_a_version_is_stored_against_that_version(study, tmp_path):
    graded, current = changed(study, tmp_path)
    path = jsonl(
        tmp_path / "v.jsonl",
        verdict(graded.task, response_id="r1", response_version=1),
        verdict(graded.task, response_id="r1", response_version=2, run_id="second"),
    )

    report = import_verdicts(path, graded.task.framework)

    assert report.ok, report.problem_lines()
    assert sorted(JudgeVerdict.objects.values_list("run__run_id", "response_id")) == [
        ("", graded.pk),
        ("second", current.pk),
    ]


def test_a_verdict_naming_a_version_that_does_not_exist_is_a_problem(study, tmp_path):
    graded, _ = changed(study, tmp_path)
    path = jsonl(tmp_path / "v.jsonl", verdict(graded.task, response_id="r1", response_version=5))

    report = import_verdicts(path, graded.task.framework)

    assert report.problem_lines() == [
        "v.jsonl: line 1: field 'response_version': response 'r1' has no stored version 5 (its "
        "versions: 1, 2)"
    ]
    assert not JudgeVerdict.objects.exists()


# ----- new studies take the current version ----------------------------------------------------


def test_a_new_study_refuses_a_superseded_version(study, tmp_path, graders):
    graded, current = changed(study, tmp_path)
    with pytest.raises(ValidationError, match="version 1 of response 'r1'"):
        create_study(
            name="Later", framework=graded.task.framework, responses=[graded], annotators=graders
        )
    later = create_study(
        name="Later", framework=graded.task.framework, responses=[current], annotators=graders
    )
    assert later.items.get().response == current


# ----- exports name the version they hold ------------------------------------------------------


def test_the_grades_export_names_the_response_and_the_version_graded(study, tmp_path):
    changed(study, tmp_path)
    rows = list(grades_export.grade_rows(study))
    position = grades_export.GRADE_COLUMNS.index("response_version")
    assert {(row[position - 1], row[position]) for row in rows} == {("r1", 1)}
    scores = list(grades_export.score_rows(study))
    position = grades_export.SCORE_COLUMNS.index("response_version")
    assert {row[position] for row in scores} == {1}


def test_the_final_labels_name_the_version_graded(study, tmp_path):
    changed(study, tmp_path)
    rows = [dict(zip(COLUMNS, label_row(found), strict=True)) for found in final_labels(study)]
    assert rows and {row["response version"] for row in rows} == {1}


def test_an_id_given_in_the_file_that_equals_a_made_one_is_a_problem(study, tmp_path):
    task = study.items.get().response.task
    path = jsonl(
        tmp_path / "r.jsonl",
        {"task_key": task.key, "model": "other", "id": "m::e1", "response": "One."},
        {"task_key": task.key, "model": "m", "response": "Two."},
    )
    before = row_counts()

    report = import_responses(path, task.framework)

    assert report.problem_lines() == [
        f"r.jsonl: line 2: field 'id': a second response with the id 'm::e1' for task "
        f"'{task.key}' (first at line 1)"
    ]
    assert row_counts() == before
