import pytest
from hypothesis import given

from core.formats.criteria import (
    Criterion,
    Layer,
    format_criteria,
    parse_criteria,
    task_criterion_id,
    task_local_id,
)
from tests.interchange.builders import PROPERTY, criteria_lists, criterion

TASK, CONSENSUS = Layer.TASK, Layer.CONSENSUS


def errors_of(cell: str) -> tuple[str, ...]:
    return parse_criteria(cell, CONSENSUS).errors


def test_a_cell_reads_ids_descriptions_and_weights_in_order():
    parsed = parse_criteria("a-01. Gives one next step ==5 | a-02. Uses jargon ==-2", CONSENSUS)
    assert parsed.errors == ()
    assert parsed.criteria == (
        Criterion("a-01", "Gives one next step", 5, CONSENSUS),
        Criterion("a-02", "Uses jargon", -2, CONSENSUS),
    )


def test_description_may_hold_dots_and_double_equals():
    (only,) = parse_criteria("x.1. Says e.g. a==b or a/b, then 2. more ==4", CONSENSUS).criteria
    assert (only.id, only.description, only.weight) == (
        "x.1",
        "Says e.g. a==b or a/b, then 2. more",
        4,
    )


def test_a_bar_inside_a_criterion_is_refused_as_the_pipeline_would_cut_it_there():
    parsed = parse_criteria("a. One ==1 | b. Says a|b or c ==4", CONSENSUS)
    assert parsed.errors == (
        "the text contains '|', which the L2-Bench pipeline reads as a separator between "
        "criteria: write it another way (criterion 2: 'b')",
    )
    assert [c.id for c in parsed.criteria] == ["a"]


def test_a_bar_without_spaces_between_whole_criteria_separates_them_as_in_the_pipeline():
    parsed = parse_criteria("a. One ==1 |b. Two ==2|c. Three ==-3", CONSENSUS)
    assert parsed.errors == ()
    assert [(c.id, c.weight) for c in parsed.criteria] == [("a", 1), ("b", 2), ("c", -3)]


def test_the_weight_is_taken_after_the_last_double_equals():
    (only,) = parse_criteria("c. Uses ==7 as a label ==-3", CONSENSUS).criteria
    assert (only.description, only.weight) == ("Uses ==7 as a label", -3)


def test_an_empty_cell_holds_no_criteria():
    assert parse_criteria("  ", CONSENSUS) == parse_criteria("", CONSENSUS)
    assert parse_criteria("", CONSENSUS).criteria == ()


def test_a_weight_that_is_a_word_is_not_a_number():
    assert errors_of("a-01. Clear ==high") == (
        "criterion weight 'high' is not a number (criterion 1: 'a-01')",
    )


def test_a_decimal_weight_is_not_a_whole_number():
    assert "'2.5' is not a whole number" in errors_of("a-01. Clear ==2.5")[0]


def test_a_criterion_without_double_equals_has_a_missing_weight():
    assert errors_of("a-01. Clear and kind")[0].startswith("missing weight")


def test_a_criterion_ending_in_bare_double_equals_has_a_missing_weight():
    assert errors_of("a-01. Clear ==")[0].startswith("missing weight")


def test_an_empty_description_is_reported():
    assert errors_of("a-01. ==3") == ("empty description (criterion 1: 'a-01')",)


def test_a_criterion_without_id_is_reported():
    assert errors_of("Gives feedback ==3")[0].startswith("missing id")


def test_an_id_with_spaces_is_reported():
    assert "contains white space" in errors_of("Gives the learner. feedback ==3")[0]


def test_a_duplicate_id_within_a_cell_is_reported_and_dropped():
    parsed = parse_criteria("a. One ==1 | b. Two ==2 | a. Three ==3", CONSENSUS)
    assert parsed.errors == ("duplicate criterion id 'a' (criteria 1 and 3)",)
    assert [c.id for c in parsed.criteria] == ["a", "b"]


def test_an_empty_criterion_between_separators_is_reported():
    assert errors_of("a. One ==1 |  | b. Two ==2") == (
        "criterion 2 is empty (two separators in a row?)",
    )


def test_every_error_in_a_cell_is_reported_not_only_the_first():
    errors = errors_of("a. One ==x | . ==2 | c. Three")
    assert len(errors) == 4  # bad weight; no id and no description; no weight
    assert [e.split(" (criterion ")[-1][0] for e in errors] == ["1", "2", "2", "3"]


def test_a_bare_task_criterion_id_is_prefixed_with_the_task_key():
    (only,) = parse_criteria("06. Names a resource ==2", TASK, task_key="137").criteria
    assert only.id == "137-06"


def test_a_task_criterion_id_already_carrying_the_task_key_is_refused():
    parsed = parse_criteria("137-06. Names a resource ==2", TASK, task_key="137")
    assert parsed.errors == (
        "task criterion ids are task-local ('06'): the L2-Bench pipeline reads '137-06' as "
        "'137-137-06' (criterion 1: '137-06')",
    )


def test_the_writer_writes_task_criterion_ids_task_local():
    cell = format_criteria([criterion("137-06", 2, TASK, "Names a resource")], "137")
    assert cell == "06. Names a resource ==2"


def test_a_task_criterion_of_another_task_cannot_be_written_task_local():
    with pytest.raises(ValueError):
        task_local_id("137", "138-06")


def test_consensus_ids_are_never_prefixed():
    (only,) = parse_criteria("02a-05. Shared ==1", CONSENSUS, task_key="137").criteria
    assert only.id == "02a-05"


def test_task_local_id_undoes_task_criterion_id():
    assert task_local_id("9", task_criterion_id("9", "01")) == "01"


@PROPERTY
@given(criteria_lists())
def test_parsing_a_formatted_cell_gives_back_the_criteria(criteria):
    parsed = parse_criteria(format_criteria(criteria), CONSENSUS)
    assert parsed.errors == ()
    assert list(parsed.criteria) == criteria


@PROPERTY
@given(criteria_lists(TASK))
def test_formatted_prefixed_task_criteria_read_back_unchanged(criteria):
    prefixed = [
        Criterion(task_criterion_id("k7", c.id), c.description, c.weight, TASK) for c in criteria
    ]
    cell = format_criteria(prefixed, "k7")
    assert list(parse_criteria(cell, TASK, task_key="k7").criteria) == prefixed


@pytest.mark.parametrize(
    "text", ["ends with |", "| starts with a bar", "has | inside", "a|b", " padded"]
)
def test_format_refuses_a_description_that_would_not_read_back(text):
    with pytest.raises(ValueError):
        format_criteria([criterion("a", text=text)])


def test_format_refuses_an_id_with_spaces():
    with pytest.raises(ValueError):
        format_criteria([criterion("a b")])
