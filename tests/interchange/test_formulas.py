"""The one rule every CSV and XLSX export follows for text a spreadsheet would run."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook

from core.formats.formulas import as_text_cell, spreadsheet_safe, spreadsheet_unsafe
from core.formats.sheets_xlsx import Column, Table, write_tables_xlsx


@pytest.mark.parametrize(
    ("value", "written"),
    [("=1+1", "'=1+1"), ("+A1", "'+A1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
     ("\tx", "'\tx"), ("\rx", "'\rx"), ("- a list item", "'- a list item"),
     ("'=1+1", "''=1+1"), ("plain", "plain"), ("'quoted", "'quoted"), ("", ""),
     (-3, -3), (2.5, 2.5), (None, None)],
)  # fmt: skip
def test_only_text_that_starts_like_a_formula_gets_an_apostrophe(value, written):
    assert spreadsheet_safe(value) == written


@pytest.mark.parametrize("number", ["-2", "+3", "-1.5", "-.5", "-2e3", "+1E-4", "-7."])
def test_a_text_that_is_just_a_number_stays_a_number(number):
    assert spreadsheet_safe(number) == number


@given(st.text(alphabet=st.sampled_from(["'", "=", "-", "+", "@", "\t", "1", ".", "a", " "])))
def test_the_apostrophe_comes_off_again_for_every_text(text):
    assert spreadsheet_unsafe(spreadsheet_safe(text)) == text


@given(st.text())
def test_any_text_reads_back_unchanged(text):
    assert spreadsheet_unsafe(spreadsheet_safe(text)) == text


def test_an_xlsx_text_that_openpyxl_would_make_a_formula_is_stored_as_text():
    sheet = Workbook().active
    sheet["A1"] = "=1+1"
    sheet["A2"] = 5
    assert sheet["A1"].data_type == "f"  # what openpyxl does by itself
    assert as_text_cell(sheet["A1"]).data_type == "s"
    assert (sheet["A1"].value, as_text_cell(sheet["A2"]).data_type) == ("=1+1", "n")


def test_a_written_sheet_keeps_formula_and_error_lookalikes_as_text_and_wraps_long_texts(
    tmp_path,
):
    long = "word " * 20
    table = Table("T", [Column("a"), Column("b")], [["=1+1", "#N/A"], ["plain", long], [3, None]])
    write_tables_xlsx(tmp_path / "t.xlsx", [table])
    sheet = load_workbook(tmp_path / "t.xlsx")["T"]
    cells = [[(c.value, c.data_type) for c in row] for row in sheet.iter_rows(min_row=2)]
    assert cells == [
        [("=1+1", "s"), ("#N/A", "s")],
        [("plain", "s"), (long, "s")],
        [(3, "n"), (None, "n")],
    ]
    assert sheet["B3"].alignment.wrap_text and not sheet["A3"].alignment.wrap_text


def test_long_texts_in_many_rows_and_columns_each_keep_their_own_value(tmp_path):
    texts = [[f"row {r} column {c} " + "word " * 15 for c in range(3)] for r in range(4)]
    texts[2][1] = "=" + texts[2][1]  # long and formula-looking: still text, still wrapped
    table = Table("T", [Column("a"), Column("b"), Column("c")], [*texts, ["short", 1, "x"]])
    write_tables_xlsx(tmp_path / "t.xlsx", [table])
    sheet = load_workbook(tmp_path / "t.xlsx")["T"]
    rows = list(sheet.iter_rows(min_row=2))
    assert [[c.value for c in row] for row in rows] == [*texts, ["short", 1, "x"]]
    assert all(c.alignment.wrap_text and c.data_type == "s" for row in rows[:4] for c in row)
    assert not any(c.alignment.wrap_text for c in rows[4])
