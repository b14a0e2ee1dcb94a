import pytest

from core.formats.verdicts import (
    VerdictRecord,
    batch_record_id,
    parse_batch_record_id,
    parse_verdict,
    read_verdicts_jsonl,
    write_verdicts_jsonl,
)
from tests.interchange.builders import jsonl_file


def verdict(**changes):
    line = {"task_key": "12", "model": "model-a", "criterion_id": "12-01", "verdict": True}
    return line | {"judge_model": "judge-x"} | changes


def problems_for(tmp_path, *lines):
    result = read_verdicts_jsonl(jsonl_file(tmp_path, "verdicts.jsonl", list(lines)))
    return [str(p) for p in result.problems]


def test_a_verdict_by_task_key_and_model_reads_with_epoch_one(tmp_path):
    (only,) = read_verdicts_jsonl(jsonl_file(tmp_path, "v.jsonl", [verdict()])).verdicts
    assert only == VerdictRecord("12-01", True, "judge-x", task_key="12", model="model-a")
    assert only.response_key == ("12", "model-a", "1")


def test_a_verdict_by_response_id_reads(tmp_path):
    line = {"response_id": 77, "criterion_id": "c", "verdict": "FAIL", "judge_model": "j"}
    (only,) = read_verdicts_jsonl(jsonl_file(tmp_path, "v.jsonl", [line])).verdicts
    assert (only.response_key, only.verdict) == (("77",), False)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), ("pass", True), ("Yes", True), (" true ", True), (False, False), ("no", False)],
)
def test_accepted_verdict_values(value, expected):
    assert parse_verdict(value) is expected


@pytest.mark.parametrize("value", ["maybe", "N/A", 1, 0, None, ""])
def test_other_verdict_values_are_refused(value):
    assert parse_verdict(value) is None


def test_a_refused_verdict_is_reported_with_its_value(tmp_path):
    assert problems_for(tmp_path, verdict(verdict="maybe")) == [
        "verdicts.jsonl: line 1: field 'verdict': 'maybe' is not true or false "
        "(also pass/fail, yes/no)"
    ]


def test_a_verdict_naming_the_response_both_ways_is_reported(tmp_path):
    assert "not both and not neither" in problems_for(tmp_path, verdict(response_id="r"))[0]


def test_a_verdict_naming_no_response_is_reported(tmp_path):
    line = {"criterion_id": "c", "verdict": True, "judge_model": "j"}
    assert "not both and not neither" in problems_for(tmp_path, line)[0]


def test_a_verdict_with_task_key_but_no_model_is_reported(tmp_path):
    line = verdict()
    del line["model"]
    assert problems_for(tmp_path, line) == ["verdicts.jsonl: line 1: field 'model': is missing"]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("epoch", 0, "must be at least 1, got 0"),
        ("epoch", 1.0, "expected an integer, got a number"),
        ("criterion_id", "", "is empty"),
        ("judge_model", None, "is missing"),
        ("rationale", 3, "expected a string, got an integer"),
        ("weight", "5", "expected an integer, got a string"),
        ("response_version", 0, "must be at least 1, got 0"),
        ("response_version", "2", "expected an integer, got a string"),
    ],
)
def test_a_field_of_the_wrong_type_is_reported(tmp_path, field, value, expected):
    assert problems_for(tmp_path, verdict(**{field: value})) == [
        f"verdicts.jsonl: line 1: field '{field}': {expected}"
    ]


def test_a_verdict_may_name_the_version_of_the_response_it_judged(tmp_path):
    lines = [verdict(response_version=2), verdict()]
    first, second = read_verdicts_jsonl(jsonl_file(tmp_path, "v.jsonl", lines)).verdicts
    assert (first.response_version, second.response_version) == (2, None)
    assert first.response_key == ("12", "model-a", "1", "v2") != second.response_key


def test_a_second_verdict_for_the_same_response_criterion_judge_and_run_is_reported(tmp_path):
    lines = [verdict(), verdict(run_id="r2"), verdict(verdict=False)]
    assert problems_for(tmp_path, *lines) == [
        "verdicts.jsonl: line 3: a second verdict for the same response, criterion, judge, "
        "prompt version and run (first at line 1)"
    ]


def test_a_record_id_that_agrees_is_accepted(tmp_path):
    assert problems_for(tmp_path, verdict(record_id="12/12-01")) == []


def test_a_record_id_for_another_criterion_is_reported(tmp_path):
    assert problems_for(tmp_path, verdict(record_id="12/12-02")) == [
        "verdicts.jsonl: line 1: field 'record_id': '12/12-02' does not match task_key and "
        "criterion_id"
    ]


def test_batch_record_id_joins_task_key_and_criterion_and_splits_back():
    assert batch_record_id("137", "137-06") == "137/137-06"
    assert parse_batch_record_id(batch_record_id("137", "02a-05")) == ("137", "02a-05")


@pytest.mark.parametrize("record_id", ["137", "/06u1", "137/", "1/2/3"])
def test_a_batch_record_id_without_exactly_two_parts_does_not_parse(record_id):
    assert parse_batch_record_id(record_id) is None


def test_batch_record_id_refuses_a_slash_in_either_part():
    with pytest.raises(ValueError):
        batch_record_id("a/b", "c")


def test_written_verdicts_read_back_the_same(tmp_path):
    records = [
        VerdictRecord(
            "c1",
            True,
            "j",
            task_key="1",
            model="m",
            epoch=2,
            rationale="why",
            prompt_version="p4",
            run_id="r",
            weight=-3,
        ),
        VerdictRecord("c1", False, "j", response_id="resp-9"),
        VerdictRecord("c1", False, "j", response_id="resp-9", run_id="r", response_version=2),
        VerdictRecord("c2", True, "j", response_id="resp-9", pass_probability=0.75),
    ]
    write_verdicts_jsonl(tmp_path / "v.jsonl", records)
    result = read_verdicts_jsonl(tmp_path / "v.jsonl")
    assert (list(result.verdicts), result.problems) == (records, ())


@pytest.mark.parametrize(("value", "stored"), [(0.82, 0.82), (0, 0.0), (1, 1.0), (None, None)])
def test_a_stated_pass_probability_is_read(tmp_path, value, stored):
    line = verdict(pass_probability=value)
    (only,) = read_verdicts_jsonl(jsonl_file(tmp_path, "v.jsonl", [line])).verdicts
    assert only.pass_probability == stored


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (1.5, "must be a probability from 0 to 1, got 1.5"),
        (-0.1, "must be a probability from 0 to 1, got -0.1"),
        (True, "expected a number, got a boolean"),
        ("0.8", "expected a number, got a string"),
    ],
)
def test_a_pass_probability_that_is_no_probability_is_refused_naming_the_field(
    tmp_path, value, problem
):
    assert problems_for(tmp_path, verdict(pass_probability=value)) == [
        f"verdicts.jsonl: line 1: field 'pass_probability': {problem}"
    ]
