import re
import secrets
import zipfile

import pytest
from openpyxl import Workbook, load_workbook

from core.formats import offline_workbook
from core.formats.offline_workbook import (
    HEADER,
    MAX_ROWS,
    CriterionRow,
    GradeVerdict,
    GradingItem,
    GradingSheet,
    LikertQuestion,
    SheetWords,
    read_grading_workbook,
    write_grading_workbook,
)

KEY = secrets.token_bytes(32)


def sheet(annotator="annotator1", items=2, criteria=2):
    return GradingSheet(
        annotator=annotator,
        study_id="s-7",
        items=tuple(
            GradingItem(
                item_id=f"signed-item-{i}",
                task_text=f"Generated task {i}",
                response_text=f"=Generated response {i}",
                criteria=tuple(
                    CriterionRow(f"cv{i}{c}", f"0{c}", f"Wording {c}", "Guidance")
                    for c in range(criteria)
                ),
            )
            for i in range(items)
        ),
    )


@pytest.fixture
def workbook_path(tmp_path):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, sheet(), KEY)
    return path


def fill(path, changes):
    """Change cells as an annotator (or a tamperer) would: {(sheet, 'F3'): value}."""
    workbook = load_workbook(path)
    for (name, coordinate), value in changes.items():
        workbook[name][coordinate] = value
    workbook.save(path)


def messages(problems):
    return [str(p) for p in problems]


def test_a_filled_workbook_reads_back_every_verdict_and_rationale(workbook_path):
    fill(workbook_path, {("Grading", "F3"): "Pass", ("Grading", "G3"): "Clear steps",
                         ("Grading", "F4"): "fail", ("Grading", "F6"): "N/A"})  # fmt: skip
    result, problems = read_grading_workbook(workbook_path, KEY)
    assert problems == () and result.signature_valid
    assert (result.annotator, result.study_id) == ("annotator1", "s-7")
    assert [(r.item_id, r.criterion_version_id, r.verdict, r.rationale) for r in result.rows] == [
        ("signed-item-0", "cv00", GradeVerdict.PASS, "Clear steps"),
        ("signed-item-0", "cv01", GradeVerdict.FAIL, ""),
        ("signed-item-1", "cv10", GradeVerdict.NA, ""),
        ("signed-item-1", "cv11", None, ""),
    ]


def test_a_verdict_outside_the_list_is_reported_with_its_row(workbook_path):
    fill(workbook_path, {("Grading", "F4"): "maybe", ("Grading", "F6"): 1.5})
    _, problems = read_grading_workbook(workbook_path, KEY)
    assert messages(problems) == [
        "grading.xlsx: row 4: field 'verdict': 'maybe' is not Pass, Fail, Present, Absent or N/A",
        "grading.xlsx: row 6: field 'verdict': 1.5 is not Pass, Fail, Present, Absent or N/A",
    ]


@pytest.mark.parametrize("typed", [3, 3.0, " 3 ", "-1"])
def test_a_whole_number_is_read_as_a_level_for_the_caller_to_check(workbook_path, typed):
    fill(workbook_path, {("Grading", "F4"): typed})
    result, problems = read_grading_workbook(workbook_path, KEY)
    assert problems == ()
    [row] = [r for r in result.rows if r.row == 4]
    assert (row.level, row.verdict) == (int(str(typed).strip().split(".")[0]), None)


def test_a_penalty_offers_present_and_absent_and_reads_them_as_stored(tmp_path):
    item = GradingItem(
        "signed-item-0",
        "Task",
        "Response",
        (
            CriterionRow("cv1", "01", "Wording", verdict=GradeVerdict.PASS),
            CriterionRow(
                "cv2", "02 (penalty)", "Uses jargon", verdict=GradeVerdict.PASS, penalty=True
            ),
        ),
    )
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, GradingSheet("annotator1", "s-7", (item,)), KEY)
    grading = load_workbook(path)["Grading"]
    assert (grading["F3"].value, grading["F4"].value) == ("Pass", "Present")
    lists = {str(v.sqref): v.formula1 for v in grading.data_validations.dataValidation}
    assert lists == {"F3": '"Pass,Fail,N/A"', "F4": '"Present,Absent,N/A"'}
    fill(path, {("Grading", "F4"): "absent"})
    result, problems = read_grading_workbook(path, KEY)
    assert problems == ()
    penalty = result.rows[1]
    assert (penalty.verdict, penalty.penalty_wording) == (GradeVerdict.FAIL, True)
    assert result.rows[0].penalty_wording is False


GERMAN = SheetWords(
    header=("item id", "criterion version id", "Element", "Aufgabe", "Antwort", "Urteil", "Grund"),
    item="Element %(number)s",
    verdicts=("Erfüllt", "Nicht erfüllt", "Entfällt"),
    penalty_verdicts=("Vorhanden", "Fehlt", "Entfällt"),
    level_error="Stufe %(low)s bis %(high)s oder %(na)s.",
)


def test_a_workbook_is_written_in_the_words_given_and_read_back_in_any_language_given(tmp_path):
    item = GradingItem(
        "signed-item-0",
        "Task",
        "Response",
        (
            CriterionRow("cv1", "01", "Wording", verdict=GradeVerdict.FAIL),
            CriterionRow("cv2", "02", "Uses jargon", verdict=GradeVerdict.PASS, penalty=True),
            CriterionRow("cv3", "03", "Levels", scale=(1, 3)),
        ),
    )
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, GradingSheet("annotator1", "s-7", (item,)), KEY, GERMAN)
    grading = load_workbook(path)["Grading"]
    assert [cell.value for cell in grading[1]][2:] == [
        "Element",
        "Aufgabe",
        "Antwort",
        "Urteil",
        "Grund",
    ]
    assert (grading["C2"].value, grading["F3"].value, grading["F4"].value) == (
        "Element 1",
        "Nicht erfüllt",
        "Vorhanden",
    )
    lists = {str(v.sqref): v.formula1 for v in grading.data_validations.dataValidation}
    assert lists == {
        "F3": '"Erfüllt,Nicht erfüllt,Entfällt"',
        "F4": '"Vorhanden,Fehlt,Entfällt"',
        "F5": '"1,2,3,Entfällt"',
    }
    fill(
        path,
        {("Grading", "F3"): "erfüllt", ("Grading", "F4"): "Fail", ("Grading", "F5"): "Entfällt"},
    )
    result, problems = read_grading_workbook(path, KEY, [GERMAN])
    assert problems == ()
    read = [(row.verdict, row.penalty_wording) for row in result.rows]
    assert read == [
        (GradeVerdict.PASS, False),
        (GradeVerdict.FAIL, False),
        (GradeVerdict.NA, False),
    ]
    fill(path, {("Grading", "F4"): "Fehlt"})
    result, _ = read_grading_workbook(path, KEY, [GERMAN])
    assert (result.rows[1].verdict, result.rows[1].penalty_wording) == (GradeVerdict.FAIL, True)
    # A language the reader is not given is not read.
    _, problems = read_grading_workbook(path, KEY)
    assert [p.line_or_row for p in problems] == [3, 4, 5]


@pytest.mark.parametrize(
    "tampering",
    [
        {("Grading", "B3"): "cv99"},  # a criterion id changed
        {("Grading", "A2"): "signed-item-9"},  # an item id changed
        {("_meta", "B2"): "annotator2"},  # handed to another annotator
        {("Grading", "B3"): "cv01", ("Grading", "B4"): "cv00"},  # two rows swapped
        {("Grading", "A8"): "signed-item-1", ("Grading", "B8"): "cv12"},  # a row added
    ],
)
def test_a_tampered_workbook_fails_its_signature(workbook_path, tampering):
    fill(workbook_path, tampering)
    result, problems = read_grading_workbook(workbook_path, KEY)
    assert not result.signature_valid
    assert messages(problems) == [
        "grading.xlsx: the signature does not match: ids, the order of rows or the annotator "
        "were changed; download a fresh copy"
    ]


def test_a_workbook_signed_with_another_key_fails_its_signature(workbook_path):
    assert not read_grading_workbook(workbook_path, b"another key")[0].signature_valid


def test_ids_are_in_hidden_columns_and_meta_is_a_very_hidden_sheet(workbook_path):
    workbook = load_workbook(workbook_path)
    grading = workbook["Grading"]
    assert grading.column_dimensions["A"].hidden and grading.column_dimensions["B"].hidden
    assert workbook["_meta"].sheet_state == "veryHidden"
    assert grading.freeze_panes == "D2"


def test_only_verdict_and_rationale_cells_of_criterion_rows_are_unlocked(workbook_path):
    grading = load_workbook(workbook_path)["Grading"]
    assert grading.protection.sheet
    unlocked = {c.coordinate for row in grading.iter_rows() for c in row if not c.protection.locked}
    assert unlocked == {"F3", "G3", "F4", "G4", "F6", "G6", "F7", "G7"}


def test_the_verdict_cells_offer_pass_fail_and_na(workbook_path):
    (choices,) = load_workbook(workbook_path)["Grading"].data_validations.dataValidation
    assert choices.formula1 == '"Pass,Fail,N/A"'
    assert str(choices.sqref) == "F3 F4 F6 F7"


def test_response_text_starting_with_equals_stays_text_not_a_formula(workbook_path):
    cell = load_workbook(workbook_path)["Grading"]["E2"]
    assert (cell.value, cell.data_type) == ("=Generated response 0", "s")


def test_control_characters_in_texts_are_replaced_not_fatal(tmp_path):
    item = GradingItem("i", "task\x07", "resp\x00onse", (CriterionRow("c", "01", "w"),))
    write_grading_workbook(tmp_path / "g.xlsx", GradingSheet("a", "s", (item,)), KEY)
    assert load_workbook(tmp_path / "g.xlsx")["Grading"]["E2"].value == "resp\ufffdonse"


def test_an_id_a_cell_cannot_hold_is_refused(tmp_path):
    item = GradingItem("bad\x01id", "t", "r", ())
    with pytest.raises(ValueError):
        write_grading_workbook(tmp_path / "g.xlsx", GradingSheet("a", "s", (item,)), KEY)


def test_a_file_that_is_not_a_workbook_is_reported(tmp_path):
    (tmp_path / "g.xlsx").write_text("not a workbook")
    _, problems = read_grading_workbook(tmp_path / "g.xlsx", KEY)
    assert messages(problems) == ["g.xlsx: is not an Excel workbook (.xlsx) written by L2 Annot"]


def test_a_workbook_without_the_meta_sheet_is_reported(workbook_path):
    workbook = load_workbook(workbook_path)
    del workbook["_meta"]
    workbook.save(workbook_path)
    _, problems = read_grading_workbook(workbook_path, KEY)
    assert messages(problems) == ["grading.xlsx: has no sheet '_meta': not a grading workbook"]


def likert_sheet(value=None):
    question = LikertQuestion("q1", "The task is authentic.", ("No", "-", "?", "+", "Yes"), value)
    item = GradingItem("item-1", "Task", "Response", (CriterionRow("cv1", "01", "W"),), (question,))
    return GradingSheet("annotator1", "s-7", (item,))


def test_rating_questions_come_after_the_criteria_and_read_back(tmp_path):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, likert_sheet(), KEY)
    grading = load_workbook(path)["Grading"]
    assert [grading["B4"].value, grading["D4"].value] == ["likert:q1", "The task is authentic."]
    assert grading["E4"].value.startswith("1 = No; 2 = -")
    fill(path, {("Grading", "F3"): "Pass", ("Grading", "F4"): 4})
    result, problems = read_grading_workbook(path, KEY)
    assert problems == () and result.signature_valid
    assert [(r.item_id, r.criterion_version_id) for r in result.rows] == [("item-1", "cv1")]
    assert [(r.item_id, r.question_id, r.value, r.row) for r in result.ratings] == [
        ("item-1", "q1", 4, 4)
    ]


def test_a_rating_cell_is_unlocked_and_limited_to_one_to_five(tmp_path):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, likert_sheet(), KEY)
    grading = load_workbook(path)["Grading"]
    assert not grading["F4"].protection.locked and grading["G4"].protection.locked
    ratings = [v for v in grading.data_validations.dataValidation if v.type == "whole"]
    assert [(str(v.sqref), v.formula1, v.formula2) for v in ratings] == [("F4", "1", "5")]


@pytest.mark.parametrize(("value", "read"), [("3", 3), (2.0, 2), (" 5 ", 5), (None, None)])
def test_a_rating_is_read_from_text_or_number(tmp_path, value, read):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, likert_sheet(), KEY)
    fill(path, {("Grading", "F4"): value})
    result, problems = read_grading_workbook(path, KEY)
    assert problems == () and result.ratings[0].value == read


@pytest.mark.parametrize("value", [0, 6, 2.5, "four", True])
def test_a_rating_outside_one_to_five_is_reported_with_its_row(tmp_path, value):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, likert_sheet(), KEY)
    fill(path, {("Grading", "F4"): value})
    result, problems = read_grading_workbook(path, KEY)
    assert [p.line_or_row for p in problems] == [4]
    assert messages(problems)[0].startswith("grading.xlsx: row 4: field 'rating': ")
    assert messages(problems)[0].endswith("is not a whole number from 1 to 5")
    assert result.ratings[0].value is None


def test_a_question_row_turned_into_a_criterion_row_fails_the_signature(tmp_path):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, likert_sheet(), KEY)
    fill(path, {("Grading", "B4"): "q1"})
    assert not read_grading_workbook(path, KEY)[0].signature_valid


def test_answers_given_before_fill_the_cells_and_read_back_unchanged(tmp_path):
    criterion = CriterionRow("cv1", "01", "W", verdict=GradeVerdict.FAIL, rationale="=Too long")
    question = LikertQuestion("q1", "Authentic?", value=2)
    item = GradingItem("item-1", "Task", "Response", (criterion,), (question,))
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, GradingSheet("a", "s", (item,)), KEY)
    result, problems = read_grading_workbook(path, KEY)
    assert problems == ()
    assert (result.rows[0].verdict, result.rows[0].rationale) == (GradeVerdict.FAIL, "=Too long")
    assert result.ratings[0].value == 2
    assert load_workbook(path)["Grading"]["G3"].data_type == "s"


def test_a_rationale_a_cell_cannot_hold_unchanged_is_left_blank(tmp_path):
    criterion = CriterionRow("cv1", "01", "W", verdict=GradeVerdict.PASS, rationale="bell\x07")
    item = GradingItem("item-1", "Task", "Response", (criterion,))
    write_grading_workbook(tmp_path / "g.xlsx", GradingSheet("a", "s", (item,)), KEY)
    assert read_grading_workbook(tmp_path / "g.xlsx", KEY)[0].rows[0].rationale == ""


def test_a_criterion_id_that_reads_as_a_question_is_refused(tmp_path):
    item = GradingItem("i", "t", "r", (CriterionRow("likert:1", "01", "w"),))
    with pytest.raises(ValueError):
        write_grading_workbook(tmp_path / "g.xlsx", GradingSheet("a", "s", (item,)), KEY)


def workbook_of_rows(path, rows):
    """A workbook shaped like a grading one (both sheets), with `rows` on the grading sheet."""
    workbook = Workbook()
    grading = workbook.active
    grading.title = "Grading"
    for row in [HEADER, *rows]:
        grading.append(row)
    workbook.create_sheet("_meta").append(["format", "l2annot-grading-2"])
    workbook.save(path)
    return path


@pytest.fixture
def small_limits(monkeypatch):
    monkeypatch.setattr(offline_workbook, "MAX_ROWS", 1_000)
    monkeypatch.setattr(offline_workbook, "MAX_COLUMNS", 20)
    return "a grading workbook has at most 1,000 rows and 20 columns"


def test_a_workbook_of_more_rows_than_the_limit_is_refused_naming_the_file_and_limit(
    tmp_path, small_limits
):
    rows = (["1", f"cv{n}", "", "", "", "Pass", ""] for n in range(1_200))
    path = workbook_of_rows(tmp_path / "huge.xlsx", rows)
    result, problems = read_grading_workbook(path, KEY)
    assert messages(problems) == [f"huge.xlsx: has 1,201 rows: {small_limits}"]
    assert result.rows == ()


def test_a_row_wider_than_the_limit_is_refused(tmp_path, small_limits):
    path = workbook_of_rows(tmp_path / "wide.xlsx", [["x"] * 7, ["x"] * 25])
    _, problems = read_grading_workbook(path, KEY)
    assert messages(problems) == [f"wide.xlsx: has 25 columns: {small_limits}"]


def without_stated_size(path):
    """The workbook with its sheets' <dimension> removed: only streaming can count the rows."""
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            if name.startswith("xl/worksheets/"):
                data = re.sub(rb"<dimension [^>]*/>", b"", data)
            target.writestr(name, data)
    return path


def test_rows_past_the_limit_are_refused_when_the_sheet_states_no_size(tmp_path, small_limits):
    rows = (["1", f"cv{n}", "", "", "", "Pass", ""] for n in range(1_200))
    path = without_stated_size(workbook_of_rows(tmp_path / "huge.xlsx", rows))
    _, problems = read_grading_workbook(path, KEY)
    assert messages(problems) == [f"huge.xlsx: has more than 1,000 rows: {small_limits}"]


def test_a_wide_row_is_refused_when_the_sheet_states_no_size(tmp_path, small_limits):
    path = without_stated_size(workbook_of_rows(tmp_path / "wide.xlsx", [["x"] * 7, ["x"] * 25]))
    _, problems = read_grading_workbook(path, KEY)
    assert messages(problems) == [f"wide.xlsx: has more than 20 columns (row 3): {small_limits}"]


def test_a_grading_workbook_written_here_reads_under_the_real_limits(tmp_path):
    path = tmp_path / "grading.xlsx"
    write_grading_workbook(path, sheet(items=30, criteria=10), KEY)
    result, problems = read_grading_workbook(path, KEY)
    assert problems == () and len(result.rows) == 300 < MAX_ROWS


def test_the_workbook_is_read_in_streaming_mode(workbook_path, monkeypatch):
    modes = []
    real = offline_workbook.load_workbook

    def spy(*args, **kwargs):
        modes.append(kwargs.get("read_only"))
        return real(*args, **kwargs)

    monkeypatch.setattr(offline_workbook, "load_workbook", spy)
    result, problems = read_grading_workbook(workbook_path, KEY)
    assert modes == [True] and problems == () and result.signature_valid


def test_the_verdict_drop_down_is_one_validation_over_every_verdict_cell(tmp_path):
    """Its drop-downs were added cell by cell, each checked against all before: quadratic in
    the cells (3 minutes for 300 responses of 30 criteria; bench.bench_offline_workbook
    measures the cost's growth). One validation lists every verdict cell."""
    path = tmp_path / "big.xlsx"
    write_grading_workbook(path, sheet(items=40, criteria=10), KEY)
    [validation] = load_workbook(path)["Grading"].data_validations.dataValidation
    assert len(validation.sqref.ranges) == 400


@pytest.mark.parametrize(
    "hostile",
    [b"bad&#0;text", b"bad&#xD800;text", b"bad\xed\xa0\x80text"],
    ids=["NUL", "surrogate-reference", "surrogate-bytes"],
)
def test_a_character_no_database_stores_in_a_cell_is_reported_not_raised(workbook_path, hostile):
    fill(workbook_path, {("Grading", "G3"): "MARKER"})
    with zipfile.ZipFile(workbook_path) as archive:
        contents = {info.filename: archive.read(info) for info in archive.infolist()}
    member = next(name for name, data in contents.items() if b"MARKER" in data)
    contents[member] = contents[member].replace(b"MARKER", hostile)
    with zipfile.ZipFile(workbook_path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    result, problems = read_grading_workbook(workbook_path, KEY)
    assert result.rows == ()
    [message] = messages(problems)
    assert message.startswith(
        "grading.xlsx: is not an Excel workbook (.xlsx) written by L2 Annot: a part of it is "
        "not well-formed XML ("
    )
