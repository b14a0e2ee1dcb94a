"""A study's grades and scores for Maintainers: CSV (streamed), XLSX, command and pages."""

import csv
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Study
from interchange import grades_export
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR, "alice"), make_user(Role.ANNOTATOR, "bob")]


@pytest.fixture
def study(graders):
    """Two responses, both graded by alice and bob: alice passes everything, bob fails
    everything with a rationale that looks like a formula; only bob's first is submitted."""
    made = factories.study(graders, responses=2, overlap=2)
    services.assign_study(made)
    alice, bob = graders
    for assignment in Assignment.objects.filter(annotator=alice):
        factories.complete(assignment, alice, verdict="pass")
        services.submit(assignment, by=assignment.annotator)
    first, _ = Assignment.objects.filter(annotator=bob).order_by("study_item_id")
    for version in factories.rubric_of(first):
        services.save_grade(first, version.pk, verdict="fail", rationale="=1+1", by=bob)
    for question in made.likert_items.all():
        services.save_likert(first, question.pk, 2, by=bob)
    services.submit(first, by=first.annotator)
    return made


def read_csv(text):
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def csv_text(study, scores=False):
    return "".join(grades_export.csv_lines(study, scores=scores))


def test_one_row_per_grade_naming_the_model_and_pseudonymising_annotators(study):
    rows = read_csv(csv_text(study))
    assert list(rows[0]) == list(grades_export.GRADE_COLUMNS)
    assert len(rows) == 3 * 3  # alice's two responses and bob's one, three criteria each
    assert {row["model"] for row in rows} == {"secret-model-x"}
    assert {row["annotator"] for row in rows} == {"Annotator 1", "Annotator 2"}
    text = csv_text(study)
    assert "alice" not in text and "bob" not in text
    fails = [row for row in rows if row["verdict"] == "fail"]
    assert len(fails) == 3 and {row["annotator"] for row in fails} == {"Annotator 2"}
    assert {(row["layer"], row["weight"]) for row in rows} == {("task", "3"), ("task", "-2")}
    assert all(row["submitted_at"] for row in rows)


def test_the_study_can_show_grader_names(study):
    Study.objects.filter(pk=study.pk).update(show_grader_names_to_adjudicator=True)
    study.refresh_from_db()
    assert {row["annotator"] for row in read_csv(csv_text(study))} == {"alice", "bob"}


def test_scores_follow_the_l2_bench_formula_per_grader_and_response(study):
    rows = read_csv(csv_text(study, scores=True))
    assert list(rows[0]) == list(grades_export.SCORE_COLUMNS)
    by_grader = sorted((row["annotator"], row["score"], row["earned"]) for row in rows)
    # weights 3, 3 and a -2 penalty: all Pass earns 3 + 3 - 2 = 4 of 6; all Fail earns nothing
    assert by_grader == [
        ("Annotator 1", str(4 / 6), "4.0"),
        ("Annotator 1", str(4 / 6), "4.0"),
        ("Annotator 2", "0.0", "0.0"),
    ]
    assert {row["possible"] for row in rows} == {"6"}


def test_na_takes_no_part_in_the_score_and_an_undefined_score_says_why(make_user):
    grader = make_user(Role.ANNOTATOR)
    made = factories.study([grader], responses=1, overlap=1)
    services.assign_study(made)
    assignment = Assignment.objects.get(annotator=grader)
    factories.complete(assignment, grader, verdict="na")
    services.submit(assignment, by=assignment.annotator)
    (row,) = read_csv(csv_text(made, scores=True))
    assert (row["score"], row["possible"]) == ("", "0")
    assert row["note"] == "no applicable criterion has a positive weight"


def test_unsubmitted_responses_have_grades_but_no_score(study, graders):
    _, bob = graders
    second = Assignment.objects.filter(annotator=bob).order_by("study_item_id").last()
    version = factories.rubric_of(second)[0]
    services.save_grade(second, version.pk, verdict="pass", rationale="", by=bob)
    grades = read_csv(csv_text(study))
    assert [row["submitted_at"] for row in grades].count("") == 1
    assert len(read_csv(csv_text(study, scores=True))) == 3


def test_the_export_takes_the_same_queries_for_a_bigger_study(make_user):
    def queries(responses):
        grader = make_user(Role.ANNOTATOR)
        made = factories.study([grader], responses=responses, overlap=1)
        services.assign_study(made)
        for assignment in Assignment.objects.filter(annotator=grader):
            factories.complete(assignment, grader)
            services.submit(assignment, by=assignment.annotator)
        with CaptureQueriesContext(connection) as grades:
            assert len(read_csv(csv_text(made))) == 3 * responses
        with CaptureQueriesContext(connection) as scores:
            assert len(read_csv(csv_text(made, scores=True))) == responses
        return len(grades), len(scores)

    assert queries(1) == queries(5) == (2, 2)


def test_the_workbook_has_grades_and_scores_and_keeps_texts_as_text(study, tmp_path):
    path = tmp_path / "grades.xlsx"
    grades_export.write_xlsx(study, path)
    workbook = load_workbook(path)
    assert workbook.sheetnames == ["Grades", "Scores"]
    grades = workbook["Grades"]
    assert [c.value for c in grades[1]] == list(grades_export.GRADE_COLUMNS)
    assert grades.max_row == 1 + 9 and workbook["Scores"].max_row == 1 + 3
    assert grades.auto_filter.ref == "A1:N10"
    formulas = [c for row in grades.iter_rows() for c in row if c.value == "=1+1"]
    assert len(formulas) == 3 and {c.data_type for c in formulas} == {"s"}


def test_the_command_writes_csv_scores_and_xlsx(study, tmp_path):
    out = io.StringIO()
    call_command("export_grades", str(study.pk), output=str(tmp_path / "g.csv"), stdout=out)
    assert len(read_csv((tmp_path / "g.csv").read_text(encoding="utf-8"))) == 9
    call_command("export_grades", str(study.pk), output=str(tmp_path / "s.csv"), scores=True)
    assert len(read_csv((tmp_path / "s.csv").read_text(encoding="utf-8"))) == 3
    call_command("export_grades", str(study.pk), format="xlsx", output=str(tmp_path / "g.xlsx"))
    assert load_workbook(tmp_path / "g.xlsx").sheetnames == ["Grades", "Scores"]


# ----- pages ------------------------------------------------------------------------------------
def test_the_csv_download_streams_with_constant_queries(study, client_as):
    client = client_as(Role.MAINTAINER)
    url = reverse("interchange:export_grades_csv", args=[study.pk])
    response = client.get(url)
    assert isinstance(response, StreamingHttpResponse) and response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="study{study.pk}-grades.csv"'
    with CaptureQueriesContext(connection) as captured:
        body = b"".join(response.streaming_content).decode("utf-8")
    assert len(captured) == 2 and len(read_csv(body)) == 9


def test_the_scores_and_workbook_downloads(study, client_as):
    client = client_as(Role.ADMIN)
    scores = client.get(reverse("interchange:export_scores_csv", args=[study.pk]))
    assert len(read_csv(b"".join(scores.streaming_content).decode())) == 3
    workbook = client.get(reverse("interchange:export_grades_xlsx", args=[study.pk]))
    assert workbook.status_code == 200
    assert workbook["Content-Disposition"].endswith(f'filename="study{study.pk}-grades.xlsx"')


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.AUTHOR, Role.VIEWER])
def test_only_maintainers_and_admins_export_grades(study, client_as, role):
    client = client_as(role)
    for name in ("export_grades_csv", "export_scores_csv", "export_grades_xlsx"):
        assert client.get(reverse(f"interchange:{name}", args=[study.pk])).status_code == 403


def test_the_index_page_links_each_study_export(study, client_as):
    page = client_as(Role.MAINTAINER).get(reverse("interchange:index")).content.decode()
    for name in ("export_grades_csv", "export_scores_csv", "export_grades_xlsx", "offline"):
        assert reverse(f"interchange:{name}", args=[study.pk]) in page


def test_csv_cells_that_look_like_formulas_are_neutralised(study):
    rationales = [row["rationale"] for row in read_csv(csv_text(study)) if row["rationale"]]
    assert "'=1+1" in rationales and "=1+1" not in rationales


def test_a_level_is_exported_and_scored_as_its_share_of_the_weight(make_user):
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task(scale=(0, 4))  # +3 ordinal 0..4, +3 binary, -2 penalty
    made = services.create_study(
        name="Levels",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=[grader],
        overlap=1,
    )
    services.assign_study(made)
    assignment = Assignment.objects.get(annotator=grader)
    ordinal, binary, penalty = factories.rubric_of(assignment)
    services.save_grade(assignment, ordinal.pk, verdict=None, level=3, rationale="", by=grader)
    services.save_grade(assignment, binary.pk, verdict="pass", rationale="", by=grader)
    services.save_grade(assignment, penalty.pk, verdict="fail", rationale="", by=grader)
    for item in made.likert_items.all():
        services.save_likert(assignment, item.pk, 4, by=grader)
    services.submit(assignment, by=grader)
    levels = {row["criterion"]: row["level"] for row in read_csv(csv_text(made))}
    assert levels == {
        ordinal.criterion.code: "3",
        binary.criterion.code: "",
        penalty.criterion.code: "",
    }
    (row,) = read_csv(csv_text(made, scores=True))
    # 3 x (3 - 0) / (4 - 0) + 3 = 5.25 earned of 6
    assert (float(row["earned"]), row["possible"]) == (5.25, "6")
    assert float(row["score"]) == pytest.approx(5.25 / 6)
