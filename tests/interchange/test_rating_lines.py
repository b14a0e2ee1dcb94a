"""Judge 1-5 ratings in the verdicts JSONL: a line with 'question' and 'score' (pure)."""

import pytest

from core.formats.verdicts import RatingRecord, read_verdicts_jsonl, write_verdicts_jsonl
from tests.interchange.builders import jsonl_file


def rating(**changes):
    line = {"task_key": "12", "model": "model-a", "question": "authenticity", "score": 4}
    return line | {"judge_model": "judge-x"} | changes


def read(tmp_path, *lines):
    return read_verdicts_jsonl(jsonl_file(tmp_path, "verdicts.jsonl", list(lines)))


def test_a_rating_line_reads_as_a_rating_not_a_verdict(tmp_path):
    result = read(tmp_path, rating(rationale="Realistic."))
    assert result.verdicts == () and result.problems == ()
    (only,) = result.ratings
    assert only == RatingRecord(
        "authenticity", 4, "judge-x", task_key="12", model="model-a", rationale="Realistic."
    )


@pytest.mark.parametrize(
    ("score", "message"),
    [
        (7, "field 'score': 7 is not a whole number from 1 to 5"),
        (0, "field 'score': 0 is not a whole number from 1 to 5"),
        (4.5, "field 'score': expected an integer, got a number"),
        ("4", "field 'score': expected an integer, got a string"),
        (True, "field 'score': expected an integer, got a boolean"),
    ],
)
def test_a_score_outside_one_to_five_is_refused(tmp_path, score, message):
    result = read(tmp_path, rating(score=score))
    assert [str(p) for p in result.problems] == [f"verdicts.jsonl: line 1: {message}"]
    assert result.ratings == ()


def test_a_rating_without_a_question_names_the_field(tmp_path):
    line = rating()
    del line["question"]
    problems = [str(p) for p in read(tmp_path, line).problems]
    assert problems == ["verdicts.jsonl: line 1: field 'question': is missing"]


def test_a_question_that_is_not_a_key_is_refused(tmp_path):
    problems = [str(p) for p in read(tmp_path, rating(question="Is it authentic?")).problems]
    assert problems == [
        "verdicts.jsonl: line 1: field 'question': 'Is it authentic?' is not a question key "
        "(a-z, 0-9, -, _)"
    ]


def test_a_line_with_both_a_verdict_and_a_score_is_refused(tmp_path):
    problems = [str(p) for p in read(tmp_path, rating(criterion_id="12-01")).problems]
    assert problems == [
        "verdicts.jsonl: line 1: a line is a verdict ('criterion_id', 'verdict') or a rating "
        "('question', 'score'), not both"
    ]


def test_a_second_rating_of_the_same_question_is_a_problem_but_another_epoch_is_not(tmp_path):
    result = read(tmp_path, rating(), rating(epoch=2), rating(score=2))
    assert len(result.ratings) == 2
    assert [str(p) for p in result.problems] == [
        "verdicts.jsonl: line 3: a second rating for the same response, question, epoch, "
        "judge, prompt version and run (first at line 1)"
    ]


def test_verdicts_and_ratings_mix_in_one_file(tmp_path):
    verdict = {"response_id": "r-1", "criterion_id": "06u1", "verdict": "pass", "judge_model": "j"}
    result = read(tmp_path, verdict, rating(), rating(question="criteria-adequacy", score=2))
    assert (len(result.verdicts), len(result.ratings), result.problems) == (1, 2, ())


def test_written_ratings_read_back_the_same(tmp_path):
    records = [
        RatingRecord("authenticity", 5, "j", response_id="r-1", run_id="7", epoch=2),
        RatingRecord("criteria-adequacy", 1, "j", task_key="9", model="m", prompt_version="v4"),
    ]
    write_verdicts_jsonl(tmp_path / "v.jsonl", records)
    assert read_verdicts_jsonl(tmp_path / "v.jsonl").ratings == tuple(records)
