"""Offline grading: the workbook of an annotator's work, and its upload recorded as them."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from openpyxl import load_workbook

from accounts.roles import Role
from core.formats.offline_workbook import (
    CriterionRow,
    GradingItem,
    GradingSheet,
    write_grading_workbook,
)
from grading import services
from grading.models import Assignment, Grade, GradeRevision, LikertRating, Study
from interchange import offline
from interchange.problem_text import problem_text, stored_problems
from rubrics.models import RubricItem
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotator(make_user):
    return make_user(Role.ANNOTATOR, "ann")


@pytest.fixture
def other(make_user):
    return make_user(Role.ANNOTATOR, "bob")


@pytest.fixture
def study(annotator, other):
    made = factories.study([annotator, other], responses=2, overlap=2)
    services.assign_study(made)
    return made


def fill(path, verdict="Pass", rationale="", rating=4, only=None):
    """Answer every criterion and question row of the workbook (or only those `only` picks by
    (row kind, row number)) as an annotator would, in the Verdict and Rationale cells."""
    workbook = load_workbook(path)
    sheet = workbook["Grading"]
    for row in range(2, sheet.max_row + 1):
        criterion_id = sheet.cell(row, 2).value
        if not criterion_id:
            continue
        kind = "rating" if criterion_id.startswith("likert:") else "criterion"
        if only is not None and not only(kind, row):
            continue
        if kind == "rating":
            sheet.cell(row, 6).value = rating
        else:
            penalty = str(sheet.cell(row, 3).value).endswith("(penalty)")
            # "Pass" everywhere means all is well: on a penalty, the behaviour is Absent.
            sheet.cell(row, 6).value = "Absent" if penalty and verdict == "Pass" else verdict
            sheet.cell(row, 7).value = rationale or None
    workbook.save(path)


def state():
    """Everything an import may write, to check that a refused one wrote nothing."""
    return (
        sorted(Grade.objects.values_list("assignment_id", "criterion_version_id", "verdict")),
        GradeRevision.objects.count(),
        sorted(LikertRating.objects.values_list("assignment_id", "item_id", "value")),
        sorted(Assignment.objects.values_list("pk", "status", "time_spent_seconds")),
    )


def exported(tmp_path, study, annotator, **options):
    path = tmp_path / "grading.xlsx"
    offline.write_workbook(path, study, annotator, **options)
    return path


def messages(report):
    return [str(p) for p in report.problems]


def test_a_filled_workbook_is_recorded_as_the_annotator(tmp_path, study, annotator, other):
    path = exported(tmp_path, study, annotator)
    fill(path, verdict="fail", rationale="Misses the level.")
    report = offline.import_workbook(path, study, annotator)
    assert report.problems == []
    mine = Assignment.objects.filter(study_item__study=study, annotator=annotator)
    criteria = sum(len(factories.rubric_of(a)) for a in mine)
    assert Grade.objects.filter(assignment__annotator=annotator).count() == criteria
    assert set(Grade.objects.values_list("verdict", "rationale")) == {("fail", "Misses the level.")}
    assert not Grade.objects.filter(assignment__annotator=other).exists()
    questions = study.likert_items.count()
    assert LikertRating.objects.filter(assignment__in=mine, value=4).count() == 2 * questions
    assert set(mine.values_list("status", flat=True)) == {Assignment.Status.IN_PROGRESS}
    assert (report.answers_changed, report.ratings_changed) == (criteria, 2 * questions)


def test_importing_the_same_workbook_again_changes_nothing(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    fill(path)
    offline.import_workbook(path, study, annotator)
    again = offline.import_workbook(path, study, annotator)
    assert (again.answers_changed, again.ratings_changed) == (0, 0)
    assert again.answers_unchanged > 0 and GradeRevision.objects.count() == 0


def test_submit_submits_the_complete_responses_and_lists_the_others(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    first_item_rows = {3, 4, 5, 6, 7}  # item row 2, three criteria, two questions
    fill(path, only=lambda kind, row: row in first_item_rows)
    report = offline.import_workbook(path, study, annotator, submit=True)
    assert report.problems == [] and report.submitted == 1
    assert len(report.incomplete) == 1 and "choose Pass, Fail or N/A" in report.incomplete[0]
    statuses = Assignment.objects.filter(annotator=annotator).order_by("position")
    assert list(statuses.values_list("status", flat=True)) == ["submitted", "assigned"]


def test_a_blank_cell_never_erases_an_answer_given_in_the_browser(tmp_path, study, annotator):
    assignment = Assignment.objects.filter(annotator=annotator).order_by("position").first()
    version = factories.rubric_of(assignment)[0]
    services.save_grade(assignment, version.pk, verdict="pass", rationale="web", by=annotator)
    path = exported(tmp_path, study, annotator)
    workbook = load_workbook(path)
    workbook["Grading"]["F3"] = workbook["Grading"]["G3"] = None
    workbook.save(path)
    assert offline.import_workbook(path, study, annotator).problems == []
    assert Grade.objects.get().verdict == "pass" and Grade.objects.get().rationale == "web"


def test_a_change_to_a_submitted_grade_keeps_a_revision(tmp_path, study, annotator):
    assignment = Assignment.objects.filter(annotator=annotator).order_by("position").first()
    factories.complete(assignment, annotator)
    services.submit(assignment, by=assignment.annotator)
    path = exported(tmp_path, study, annotator, unfinished_only=False)
    assert load_workbook(path)["Grading"]["F3"].value == "Pass"  # filled in advance
    fill(path, verdict="N/A", only=lambda kind, row: row == 3)
    report = offline.import_workbook(path, study, annotator)
    assert report.problems == [] and report.answers_changed == 1
    revision = GradeRevision.objects.get()
    assert (revision.verdict, revision.replaced_by) == ("pass", annotator)
    assert revision.grade.verdict == "na"


def test_unfinished_only_leaves_submitted_responses_out(tmp_path, study, annotator):
    assignment = Assignment.objects.filter(annotator=annotator).order_by("position").first()
    factories.complete(assignment, annotator)
    services.submit(assignment, by=assignment.annotator)
    assert len(offline.grading_sheet(study, annotator).items) == 1
    assert len(offline.grading_sheet(study, annotator, unfinished_only=False).items) == 2


def test_the_workbook_never_names_the_model(tmp_path, make_user):
    annotator = make_user(Role.ANNOTATOR, "ann")
    task = factories.published_task()
    answers = [factories.response(task, model="secret-model-x"), factories.response(task)]
    answers[1].model_name, answers[1].model_family = "hidden-model-y", "hidden-family"
    answers[1].model_version = "hidden-v9"
    answers[1].save()
    conversation = factories.response(factories.published_task(), "hidden-chat-z", turns=2)
    made = services.create_study(
        name="Blind",
        framework=factories.framework(),
        responses=[*answers, conversation],
        annotators=[annotator],
        overlap=1,
    )
    services.assign_study(made)
    path = exported(tmp_path, made, annotator)
    workbook = load_workbook(path)
    cells = [str(c.value) for ws in workbook for row in ws.iter_rows() for c in row if c.value]
    assert any("Turn 1" in text for text in cells)  # the conversation is there, turn by turn
    for secret in ("secret-model-x", "hidden-model-y", "hidden-family", "hidden-v9", "hidden-chat"):
        assert not any(secret in text for text in cells), secret


def test_the_workbook_shows_the_task_the_rubric_and_its_guidance(tmp_path, study, annotator):
    assignment = Assignment.objects.filter(annotator=annotator).order_by("position").first()
    sheet = load_workbook(exported(tmp_path, study, annotator))["Grading"]
    task = assignment.study_item.response.task
    assert sheet["D2"].value.startswith(task.instruction)
    versions = factories.rubric_of(assignment)
    assert [sheet[f"D{n}"].value for n in (3, 4, 5)] == [v.wording for v in versions]
    assert sheet["E3"].value == f"What passes: {versions[0].passes}"
    assert sheet["C5"].value.endswith("(penalty)")  # the factory's last criterion is a penalty


def test_a_criterion_that_does_not_apply_is_left_out(tmp_path, study, annotator):
    assignment = Assignment.objects.filter(annotator=annotator).order_by("position").first()
    excluded = factories.rubric_of(assignment)[1]
    RubricItem.objects.filter(criterion_version=excluded).update(applicable=False, na_reason="x")
    (first, _) = offline.grading_sheet(study, annotator).items
    assert str(excluded.pk) not in [c.criterion_version_id for c in first.criteria]


def test_the_export_takes_the_same_queries_for_more_responses(make_user):
    def queries(responses):
        annotator = make_user(Role.ANNOTATOR)
        made = factories.study([annotator], responses=responses, overlap=1)
        services.assign_study(made)
        with CaptureQueriesContext(connection) as captured:
            sheet = offline.grading_sheet(made, annotator)
        assert len(sheet.items) == responses
        return len(captured)

    assert queries(1) == queries(4)


# ----- refusals: nothing is written -------------------------------------------------------------
def test_a_tampered_id_fails_the_signature_and_writes_nothing(tmp_path, study, annotator, other):
    path = exported(tmp_path, study, annotator)
    fill(path)
    theirs = Assignment.objects.filter(annotator=other).first()
    workbook = load_workbook(path)
    workbook["Grading"]["A2"] = str(theirs.pk)  # moved to another annotator's assignment
    workbook.save(path)
    before = state()
    report = offline.import_workbook(path, study, annotator, filename="mine.xlsx")
    assert messages(report) == [
        "mine.xlsx: the signature does not match: ids, the order of rows or the annotator were "
        "changed; download a fresh copy"
    ]
    assert state() == before


def test_a_workbook_for_another_annotator_is_refused(tmp_path, study, annotator, other):
    path = exported(tmp_path, study, annotator)
    fill(path)
    before = state()
    report = offline.import_workbook(path, study, other)
    assert messages(report) == ["grading.xlsx: was written for 'ann', not 'bob'"]
    assert state() == before


def test_a_workbook_for_another_study_is_refused(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    fill(path)
    another = factories.study([annotator], responses=1, overlap=1)
    before = state()
    report = offline.import_workbook(path, another, annotator)
    assert messages(report) == [
        f"grading.xlsx: was written for study {study.pk}, not study {another.pk}"
    ]
    assert state() == before


def test_a_closed_study_takes_no_upload(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    fill(path)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    study.refresh_from_db()
    before = state()
    report = offline.import_workbook(path, study, annotator)
    assert "is closed: grades can no longer change" in messages(report)[0]
    assert state() == before


def signed(tmp_path, annotator, study, item_id, criterion_version_id):
    """A workbook signed with the server's key (as if the key had leaked, or ids were wrong
    when written): what only the database checks can catch."""
    criterion = CriterionRow(str(criterion_version_id), "x", "x")
    item = GradingItem(str(item_id), "t", "r", (criterion,))
    path = tmp_path / "signed.xlsx"
    write_grading_workbook(
        path, GradingSheet(annotator.username, str(study.pk), (item,)), offline.signing_key()
    )
    fill(path)
    return path


def test_an_assignment_that_is_not_the_annotators_is_refused(tmp_path, study, annotator, other):
    theirs = Assignment.objects.filter(annotator=other).first()
    path = signed(tmp_path, annotator, study, theirs.pk, factories.rubric_of(theirs)[0].pk)
    before = state()
    report = offline.import_workbook(path, study, annotator)
    assert messages(report) == [
        f"signed.xlsx: row 3: field 'item id': assignment {theirs.pk} is not ann's "
        f"in study {study.pk}"
    ]
    assert state() == before


def test_a_criterion_outside_the_rubric_is_refused_with_its_row(tmp_path, study, annotator):
    mine = Assignment.objects.filter(annotator=annotator).first()
    other_task = factories.published_task()
    elsewhere = RubricItem.objects.filter(rubric_version__task=other_task).first().criterion_version
    path = signed(tmp_path, annotator, study, mine.pk, elsewhere.pk)
    before = state()
    report = offline.import_workbook(path, study, annotator)
    assert messages(report) == [
        "signed.xlsx: row 3: field 'verdict': This criterion is not part of the rubric this "
        "response is graded on."
    ]
    assert state() == before


def test_a_refusal_of_the_grading_rules_is_read_in_the_readers_language(tmp_path, study, annotator):
    mine = Assignment.objects.filter(annotator=annotator).first()
    other_task = factories.published_task()
    elsewhere = RubricItem.objects.filter(rubric_version__task=other_task).first().criterion_version
    path = signed(tmp_path, annotator, study, mine.pk, elsewhere.pk)
    with translation.override("en"):  # as a job runs
        report = offline.import_workbook(path, study, annotator)
    [stored] = stored_problems(report.problems)
    with translation.override("es"):
        assert problem_text(stored) == (
            "signed.xlsx: fila 3: campo 'verdict': Este criterio no forma parte de la rúbrica "
            "con la que se califica esta respuesta."
        )


def test_one_bad_row_among_good_ones_writes_nothing(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    fill(path)
    workbook = load_workbook(path)
    workbook["Grading"]["F4"] = "maybe"
    workbook.save(path)
    before = state()
    report = offline.import_workbook(path, study, annotator)
    assert messages(report) == [
        "grading.xlsx: row 4: field 'verdict': 'maybe' is not Pass, Fail, Present, Absent or N/A"
    ]
    assert state() == before


def test_a_refusal_by_the_grading_rules_rolls_back_the_rows_already_saved(
    tmp_path, study, annotator
):
    """A Fail without rationale on a submitted response is refused by save_grade: the rows
    saved before it in the same upload are rolled back too. (Fail on a penalty is Absent,
    which needs none.)"""
    _, second = Assignment.objects.filter(annotator=annotator).order_by("position")
    for version in factories.rubric_of(second):  # all well, no rationale needed
        verdict = "fail" if version.is_penalty else "pass"
        services.save_grade(second, version.pk, verdict=verdict, rationale="", by=annotator)
    for question in study.likert_items.all():
        services.save_likert(second, question.pk, 3, by=annotator)
    services.submit(second, by=second.annotator)
    path = exported(tmp_path, study, annotator, unfinished_only=False)
    fill(path, verdict="Fail")  # the first response's rows come first and are saved
    before = state()
    report = offline.import_workbook(path, study, annotator)
    assert len(report.problems) == 2 and all(p.field == "verdict" for p in report.problems)
    assert all("write the rationale" in p.message for p in report.problems)
    assert state() == before


def test_present_or_absent_on_a_criterion_that_is_no_penalty_is_refused(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    fill(path, verdict="Present", rationale="Seen", only=lambda kind, row: row == 3)
    report = offline.import_workbook(path, study, annotator)
    assert [(p.line_or_row, p.message) for p in report.problems] == [
        (3, "Present and Absent are for penalties: choose Pass or Fail")
    ]


# ----- commands ---------------------------------------------------------------------------------
def test_the_commands_export_and_import_a_workbook(tmp_path, study, annotator):
    path = tmp_path / "work.xlsx"
    out = StringIO()
    call_command("export_grading_workbook", str(path), study=study.pk, annotator="ann", stdout=out)
    assert out.getvalue().strip() == f"2 responses written to {path}"
    fill(path)
    out = StringIO()
    call_command(
        "import_grading_workbook",
        str(path),
        study=study.pk,
        annotator="ann",
        submit=True,
        stdout=out,
    )
    assert out.getvalue().strip() == (
        "answers: 6 changed, 0 unchanged; ratings: 4 changed, 0 unchanged; 2 submitted"
    )
    assert not Assignment.objects.filter(annotator=annotator).exclude(status="submitted").exists()


def test_the_import_command_lists_every_problem_and_fails(tmp_path, study, annotator):
    path = exported(tmp_path, study, annotator)
    fill(path, verdict="maybe")
    err = StringIO()
    with pytest.raises(CommandError, match="6 problems: nothing was imported"):
        call_command(
            "import_grading_workbook", str(path), study=study.pk, annotator="ann", stderr=err
        )
    assert err.getvalue().count("is not Pass, Fail, Present, Absent or N/A") == 6
    assert not Grade.objects.exists()


@pytest.fixture
def scaled(annotator):
    """A study of one response whose first criterion is ordinal (levels 0-4)."""
    task = factories.published_task(scale=(0, 4))
    made = services.create_study(
        name="Levels offline",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=[annotator],
        overlap=1,
        likert_prompts=(),
    )
    services.assign_study(made)
    version = next(
        v for v in factories.rubric_of(made.items.get().assignments.get()) if v.is_ordinal
    )
    return made, version


def _ordinal_row(sheet, version):
    return next(
        row for row in range(2, sheet.max_row + 1) if sheet.cell(row, 2).value == str(version.pk)
    )


def test_an_ordinal_criterion_offers_its_levels_and_reads_one_back(tmp_path, scaled, annotator):
    made, version = scaled
    path = exported(tmp_path, made, annotator)
    workbook = load_workbook(path)
    sheet = workbook["Grading"]
    row = _ordinal_row(sheet, version)
    cell = sheet.cell(row, 6).coordinate
    [levels] = [v for v in sheet.data_validations.dataValidation if cell in v.sqref]
    assert levels.formula1 == '"0,1,2,3,4,N/A"'
    assert "Levels (choose one, or N/A): 0 = Level 0; 1 = Level 1" in sheet.cell(row, 5).value
    fill(path, only=lambda kind, number: number != row)
    workbook = load_workbook(path)
    workbook["Grading"].cell(row, 6).value = 3
    workbook.save(path)
    report = offline.import_workbook(path, made, annotator, submit=True)
    assert report.problems == [] and report.submitted == 1
    grade = Grade.objects.get(criterion_version=version)
    assert (grade.level, grade.verdict) == (3, "")
    again = exported(tmp_path, made, annotator, unfinished_only=False)
    assert load_workbook(again)["Grading"].cell(row, 6).value == 3  # filled in advance


def test_a_level_off_the_scale_is_refused_naming_its_row_and_field(tmp_path, scaled, annotator):
    made, version = scaled
    path = exported(tmp_path, made, annotator)
    row = _ordinal_row(load_workbook(path)["Grading"], version)
    fill(path, only=lambda kind, number: number != row)
    workbook = load_workbook(path)
    workbook["Grading"].cell(row, 6).value = "7"
    workbook.save(path)
    before = state()
    report = offline.import_workbook(path, made, annotator)
    assert messages(report) == [
        f"grading.xlsx: row {row}: field 'level': {version.criterion.code}: 7 is outside its "
        "scale 0 to 4."
    ]
    assert state() == before


def test_a_study_closed_while_the_file_is_read_takes_none_of_it(
    tmp_path, study, annotator, monkeypatch
):
    path = exported(tmp_path, study, annotator)
    fill(path)
    before = state()
    asked = []

    def closed_after_the_check(self, now=None):
        asked.append(now)
        return len(asked) > 1  # open when the upload is checked, closed at the first save

    monkeypatch.setattr(Study, "is_closed", closed_after_the_check)
    report = offline.import_workbook(path, study, annotator)
    found = messages(report)
    assert found and all("is closed: grades can no longer change" in m for m in found)
    assert state() == before
