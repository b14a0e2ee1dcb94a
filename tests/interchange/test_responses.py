import pytest

from core.formats.responses import (
    ResponseRecord,
    Role,
    Turn,
    read_responses_jsonl,
    write_responses_jsonl,
)
from tests.interchange.builders import jsonl_file


def response(**changes):
    return {"task_key": "12", "model": "model-a", "response": "Generated answer."} | changes


def problems_for(tmp_path, *lines):
    result = read_responses_jsonl(jsonl_file(tmp_path, "responses.jsonl", list(lines)))
    return [str(p) for p in result.problems]


def test_a_text_response_reads_with_defaults(tmp_path):
    path = jsonl_file(tmp_path, "r.jsonl", [response()])
    assert read_responses_jsonl(path).responses == (
        ResponseRecord(task_key="12", model="model-a", response="Generated answer."),
    )


def test_a_conversation_reads_as_turns(tmp_path):
    turns = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    path = jsonl_file(tmp_path, "r.jsonl", [response(response=None) | {"turns": turns}])
    (only,) = read_responses_jsonl(path).responses
    assert only.turns == (Turn(Role.USER, "Hi"), Turn(Role.ASSISTANT, "Hello"))


def test_task_id_is_accepted_for_task_key_and_an_integer_key_becomes_text(tmp_path):
    line = {"task_id": 12, "model": "m", "response": "r"}
    (only,) = read_responses_jsonl(jsonl_file(tmp_path, "r.jsonl", [line])).responses
    assert only.task_key == "12"


def test_task_key_and_task_id_that_disagree_are_reported(tmp_path):
    assert problems_for(tmp_path, response(task_id="13")) == [
        "responses.jsonl: line 1: field 'task_id': differs from 'task_key' (give one of them)"
    ]


def test_a_missing_model_is_reported(tmp_path):
    line = response()
    del line["model"]
    assert problems_for(tmp_path, line) == ["responses.jsonl: line 1: field 'model': is missing"]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("model", 5, "expected a string, got an integer"),
        ("family", ["x"], "expected a string, got a list"),
        ("epoch", "1", "expected an integer, got a string"),
        ("epoch", 0, "must be at least 1, got 0"),
        ("id", True, "expected a string or an integer, got a boolean"),
        ("response", 3.5, "expected a string, got a number"),
    ],
)
def test_a_field_of_the_wrong_type_is_reported(tmp_path, field, value, expected):
    line = response(**{field: value})
    assert problems_for(tmp_path, line) == [f"responses.jsonl: line 1: field '{field}': {expected}"]


def test_both_response_and_turns_is_reported(tmp_path):
    line = response(turns=[{"role": "assistant", "content": "x"}])
    assert problems_for(tmp_path, line) == [
        "responses.jsonl: line 1: needs exactly one of 'response' and 'turns'"
    ]


def test_neither_response_nor_turns_is_reported(tmp_path):
    line = response()
    del line["response"]
    assert "needs exactly one" in problems_for(tmp_path, line)[0]


def test_an_unknown_role_is_reported(tmp_path):
    line = {"task_key": "1", "model": "m", "turns": [{"role": "tutor", "content": "x"}]}
    assert problems_for(tmp_path, line) == [
        "responses.jsonl: line 1: field 'turns[0].role': 'tutor' is not user, assistant or system"
    ]


def test_a_conversation_without_an_assistant_turn_is_reported(tmp_path):
    line = {"task_key": "1", "model": "m", "turns": [{"role": "user", "content": "x"}]}
    assert "has no assistant turn" in problems_for(tmp_path, line)[0]


def test_turn_content_must_be_text(tmp_path):
    line = {"task_key": "1", "model": "m", "turns": [{"role": "assistant", "content": None}]}
    assert problems_for(tmp_path, line) == [
        "responses.jsonl: line 1: field 'turns[0].content': expected a string, got null"
    ]


def test_every_wrong_field_of_a_line_is_reported(tmp_path):
    assert len(problems_for(tmp_path, {"epoch": -1, "response": 1})) == 4


def test_a_duplicate_external_id_is_reported(tmp_path):
    lines = [response(id="r1"), response(id="r1", epoch=2)]
    assert problems_for(tmp_path, *lines) == [
        "responses.jsonl: line 2: field 'id': duplicate id 'r1' (first at line 1)"
    ]


def test_a_second_response_for_the_same_task_model_version_and_epoch_is_reported(tmp_path):
    assert problems_for(tmp_path, response(), response(epoch=2), response()) == [
        "responses.jsonl: line 3: a second response for the same task_key, model, version "
        "and epoch (first at line 1)"
    ]


def test_written_responses_read_back_the_same(tmp_path):
    records = [
        ResponseRecord(
            "1", "m", response="ü\nline", family="f", version="2", epoch=3, external_id="x"
        ),
        ResponseRecord("2", "m", turns=(Turn(Role.SYSTEM, ""), Turn(Role.ASSISTANT, "ok"))),
    ]
    write_responses_jsonl(tmp_path / "r.jsonl", records)
    result = read_responses_jsonl(tmp_path / "r.jsonl")
    assert (list(result.responses), result.problems) == (records, ())
