"""Final labels (pure: no database): which verdict stands for each response and criterion."""

import csv
import io

import pytest
from openpyxl import load_workbook

from core.analysis.export import labels_to_dict, write_labels_csv, write_labels_xlsx
from core.analysis.labels import (
    COLUMNS,
    Basis,
    ExpertVerdict,
    Gold,
    LabelUnit,
    final_label,
    final_labels,
    label_row,
)
from core.analysis.ratings import CriterionInfo, ItemInfo

ITEM = ItemInfo(1, "137", "01a", "01", model="model-x")
CRITERION = CriterionInfo(10, "06u1", "Fits the learners' age", "universal", "", "")


def unit(*verdicts: str, gold: Gold | None = None) -> LabelUnit:
    experts = tuple(
        ExpertVerdict(f"Annotator {n}", verdict, f"because {n}", f"2026-12-0{n}T10:00:00+00:00")
        for n, verdict in enumerate(verdicts, start=1)
    )
    return LabelUnit(ITEM, 7, CRITERION, experts, gold)


@pytest.mark.parametrize(
    ("verdicts", "label", "basis"),
    [
        (("pass", "pass", "pass"), "pass", Basis.UNANIMOUS),
        (("fail", "fail"), "fail", Basis.UNANIMOUS),
        (("pass", "fail", "pass"), "pass", Basis.MAJORITY),
        (("fail", "na", "fail", "pass"), "fail", Basis.MAJORITY),
        (("pass", "fail"), None, Basis.TIED),
        (("pass", "na", "fail"), None, Basis.TIED),
        (("na", "na"), None, Basis.NOT_APPLICABLE),
        (("pass", "na"), "pass", Basis.SINGLE),  # N/A is not a vote: one expert's verdict
        (("fail",), "fail", Basis.SINGLE),
        (("na", "pass", "na"), "pass", Basis.SINGLE),
    ],
)
def test_the_experts_decide_when_nobody_adjudicated(verdicts, label, basis):
    found = final_label(unit(*verdicts))
    assert (found.label, found.basis) == (label, basis)
    assert (found.n_pass, found.n_fail, found.n_not_applicable) == (
        verdicts.count("pass"),
        verdicts.count("fail"),
        verdicts.count("na"),
    )
    if label is None:
        assert found.decided_by == "" and found.decided_at == ""
    else:
        assert found.decided_by == "experts"
        assert found.decided_at == f"2026-12-0{len(verdicts)}T10:00:00+00:00"  # the last one


def test_a_gold_verdict_decides_even_against_a_unanimous_panel():
    gold = Gold("fail", "maintainer", "2026-12-09T08:00:00+00:00", "Too hard for A1")
    found = final_label(unit("pass", "pass", "pass", gold=gold))
    assert (found.label, found.basis) == ("fail", Basis.ADJUDICATED)
    assert (found.decided_by, found.decided_at) == ("maintainer", gold.at)
    assert found.n_pass == 3


def test_rows_follow_the_columns_and_the_json_keeps_each_rationale():
    found = final_label(unit("pass", "fail", "pass"))
    row = dict(zip(COLUMNS, label_row(found), strict=True))
    assert row["task"] == "137" and row["response"] == 7 and row["criterion"] == "06u1"
    assert row["label"] == "pass" and row["basis"] == "majority"
    assert row["experts"] == "Annotator 1: pass; Annotator 2: fail; Annotator 3: pass"
    document = labels_to_dict("Pilot", [found])
    [label] = document["labels"]
    assert [e["rationale"] for e in label["experts"]] == ["because 1", "because 2", "because 3"]
    assert label["gold"] is None and label["label"] == "pass"


def test_the_csv_never_writes_a_live_formula():
    evil = CriterionInfo(11, "t1", '=HYPERLINK("http://evil.example","x")', "task", "", "")
    found = final_label(LabelUnit(ITEM, 7, evil, unit("pass").experts, None))
    text = io.StringIO()
    write_labels_csv([found], text)
    header, row = list(csv.reader(io.StringIO(text.getvalue())))
    assert header == COLUMNS
    assert row[COLUMNS.index("wording")] == "'" + evil.wording


def test_the_workbook_keeps_a_formula_as_text_and_marks_a_character_excel_refuses():
    evil = CriterionInfo(11, "t1", '=HYPERLINK("http://evil.example","x")', "task", "", "")
    control = CriterionInfo(12, "t2", "Says \x01 nothing", "task", "", "")
    labels = [
        final_label(LabelUnit(ITEM, 7, c, unit("pass").experts, None)) for c in (evil, control)
    ]
    out = io.BytesIO()
    write_labels_xlsx(labels, out)
    sheet = load_workbook(out)["Final labels"]
    header, *rows = sheet.iter_rows()
    assert [cell.value for cell in header] == COLUMNS
    wording = COLUMNS.index("wording")
    assert (rows[0][wording].value, rows[0][wording].data_type) == (evil.wording, "s")
    assert rows[1][wording].value == "Says \ufffd nothing"


SCALED = CriterionInfo(12, "t1-01", "Explains at the right level", "task", "", "", scale=(0, 3))


def leveled(*answers: int | str, gold: Gold | None = None) -> LabelUnit:
    experts = tuple(
        ExpertVerdict(
            f"Annotator {n}",
            "na" if answer == "na" else "",
            "",
            f"2026-12-0{n}T10:00:00+00:00",
            None if answer == "na" else int(answer),
        )
        for n, answer in enumerate(answers, start=1)
    )
    return LabelUnit(ITEM, 7, SCALED, experts, gold)


@pytest.mark.parametrize(
    ("answers", "level", "basis"),
    [
        ((2, 2, 2), 2, Basis.UNANIMOUS),
        ((2, 2, "na"), 2, Basis.UNANIMOUS),  # N/A is not a level
        ((2, "na"), 2, Basis.SINGLE),  # one expert's level
        ((3,), 3, Basis.SINGLE),
        ((1, 3, 3), 3, Basis.MAJORITY),
        ((0, 1, 1, 3), 1, Basis.MAJORITY),  # the level given most often
        ((1, 3), None, Basis.TIED),
        ((0, 0, 2, 2, 3), None, Basis.TIED),
        (("na", "na"), None, Basis.NOT_APPLICABLE),
    ],
)
def test_an_ordinal_criterions_label_is_the_level_the_experts_agree_on(answers, level, basis):
    found = final_label(leveled(*answers))
    assert (found.level, found.basis, found.label) == (level, basis, None)
    assert (found.n_pass, found.n_fail, found.n_not_applicable) == (0, 0, answers.count("na"))
    assert found.decided_by == ("experts" if level is not None else "")


def test_a_gold_level_decides_and_every_level_is_written():
    gold = Gold("", "maintainer", "2026-12-09T08:00:00+00:00", "Between the two", level=2)
    found = final_label(leveled(1, 3, "na", gold=gold))
    assert (found.level, found.basis, found.decided_by) == (2, Basis.ADJUDICATED, "maintainer")
    row = dict(zip(COLUMNS, label_row(found), strict=True))
    assert (row["label"], row["level"], row["gold"]) == ("", 2, "2")
    assert row["experts"] == "Annotator 1: 1; Annotator 2: 3; Annotator 3: na"
    [document] = labels_to_dict("Pilot", [found])["labels"]
    assert (document["label"], document["level"], document["gold"]["level"]) == (None, 2, 2)
    assert [e["level"] for e in document["experts"]] == [1, 3, None]


def test_a_single_experts_label_is_said_single_and_can_be_left_out():
    units = [unit("pass"), unit("pass", "pass"), unit("fail", "na"), leveled(2), leveled(2, 2)]
    found = final_labels(units)
    assert [str(f.basis) for f in found] == ["single", "unanimous", "single", "single", "unanimous"]
    row = dict(zip(COLUMNS, label_row(found[0]), strict=True))
    assert (row["label"], row["basis"], row["decided by"]) == ("pass", "single", "experts")
    kept = final_labels(units, single=False)
    assert [f.unit for f in kept] == [units[1], units[4]]
    gold = Gold("fail", "maintainer", "2026-12-09T08:00:00+00:00", "")
    adjudicated = final_labels([unit("pass", gold=gold)], single=False)
    assert [f.basis for f in adjudicated] == [Basis.ADJUDICATED]  # a gold verdict is no single
