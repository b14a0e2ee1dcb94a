import secrets

import pytest
from openpyxl import load_workbook

from interchange.formats.offline_workbook import (
    CriterionRow,
    GradeVerdict,
    GradingItem,
    GradingSheet,
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
    fill(workbook_path, {("Grading", "F4"): "maybe", ("Grading", "F6"): 1})
    _, problems = read_grading_workbook(workbook_path, KEY)
    assert messages(problems) == [
        "grading.xlsx: row 4: field 'verdict': 'maybe' is not Pass, Fail or N/A",
        "grading.xlsx: row 6: field 'verdict': 1 is not Pass, Fail or N/A",
    ]


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
