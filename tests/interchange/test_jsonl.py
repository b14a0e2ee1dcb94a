from core.formats.jsonl import iter_jsonl
from tests.interchange.builders import jsonl_file


def read(path):
    problems = []
    objects = list(iter_jsonl(path, problems))
    return objects, [str(p) for p in problems]


def test_objects_come_with_their_line_numbers_and_blank_lines_are_skipped(tmp_path):
    path = jsonl_file(tmp_path, "x.jsonl", [{"a": 1}, "", "   ", {"b": 2}])
    assert read(path) == ([(1, {"a": 1}), (4, {"b": 2})], [])


def test_a_line_that_is_not_json_is_reported_and_reading_goes_on(tmp_path):
    path = jsonl_file(tmp_path, "x.jsonl", [{"a": 1}, "{oops", {"b": 2}])
    objects, problems = read(path)
    assert [n for n, _ in objects] == [1, 3]
    assert problems == [
        "x.jsonl: line 2: not valid JSON (Expecting property name enclosed in double quotes "
        "at column 2)"
    ]


def test_a_line_that_is_json_but_not_an_object_is_reported(tmp_path):
    path = jsonl_file(tmp_path, "x.jsonl", [[1, 2], "7"])
    assert read(path)[1] == [
        "x.jsonl: line 1: expected an object, got a list",
        "x.jsonl: line 2: expected an object, got an integer",
    ]


def test_nan_is_not_json(tmp_path):
    path = jsonl_file(tmp_path, "x.jsonl", ['{"a": NaN}'])
    assert read(path)[1] == ["x.jsonl: line 1: not valid JSON (NaN is not JSON)"]


def test_a_key_given_twice_is_reported(tmp_path):
    path = jsonl_file(tmp_path, "x.jsonl", ['{"a": 1, "a": 2}'])
    assert read(path)[1] == ["x.jsonl: line 1: not valid JSON (key 'a' appears twice)"]


def test_a_line_nested_deeper_than_python_walks_is_reported(tmp_path):
    # Within what the JSON reader follows, beyond Python's recursion limit: the checks that
    # walk the decoded value must refuse it as well, not end in a RecursionError.
    deep = '{"a": ' + "[" * 1200 + "]" * 1200 + "}"
    path = jsonl_file(tmp_path, "x.jsonl", [deep, {"b": 2}])
    objects, problems = read(path)
    assert [n for n, _ in objects] == [2]
    assert problems == ["x.jsonl: line 1: not valid JSON (nested too deeply)"]


def test_a_line_that_is_not_utf8_is_reported(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    objects, problems = read(path)
    assert len(objects) == 1
    assert problems[0].startswith("x.jsonl: line 2: not valid UTF-8 (")


def test_a_byte_order_mark_on_the_first_line_is_ignored(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n')
    assert read(path) == ([(1, {"a": 1})], [])


def test_a_byte_order_mark_on_a_later_line_is_named(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n\xef\xbb\xbf{"b": 2}\n')
    assert read(path)[1] == [
        "x.jsonl: line 2: not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig) "
        "at column 1)"
    ]


def test_a_long_number_and_a_nul_are_found_on_every_line_read(tmp_path):
    path = jsonl_file(
        tmp_path,
        "x.jsonl",
        ['{"a": [1, {"b": 1234567890123456789}]}', '{"c": "\\\\u0000"}', '{"d": "\\u0000"}'],
    )
    objects, problems = read(path)
    assert objects == [(2, {"c": "\\u0000"})]  # an escaped backslash, then u0000
    assert problems == [
        "x.jsonl: line 1: field 'a.1.b': a number of 19 digits (at most 18)",
        "x.jsonl: line 3: field 'd': holds the NUL character (\\u0000), which the database "
        "cannot store",
    ]


def test_a_missing_file_is_one_problem(tmp_path):
    assert read(tmp_path / "gone.jsonl") == ([], ["gone.jsonl: file not found"])


def test_a_nul_anywhere_in_a_line_is_reported_at_its_field_as_the_database_refuses_it(tmp_path):
    lines = [
        {"response": "fi\u0000ne"},
        {"turns": [{"role": "user", "content": "hi"}, {"content": "\u0000"}]},
        {"metadata": {"no\u0000te": "x"}},
        {"ok": "fine"},
    ]
    objects, problems = read(jsonl_file(tmp_path, "x.jsonl", lines))
    assert objects == [(4, {"ok": "fine"})]
    nul = "holds the NUL character (\\u0000), which the database cannot store"
    assert problems == [
        f"x.jsonl: line 1: field 'response': {nul}",
        f"x.jsonl: line 2: field 'turns.1.content': {nul}",
        f"x.jsonl: line 3: field 'metadata': a key {nul}",
    ]


def test_half_a_surrogate_pair_is_reported_at_its_field_and_an_escaped_pair_is_read(tmp_path):
    lines = [
        '{"response": "fi\\ud800ne"}',
        '{"turns": [{"role": "user", "content": "hi"}, {"content": "\\uDFFF"}]}',
        '{"metadata": {"no\\udbffte": "x"}}',
        '{"ok": "\\ud83d\\ude00 and \\\\ud800, an escaped backslash"}',
    ]
    objects, problems = read(jsonl_file(tmp_path, "x.jsonl", lines))
    assert objects == [(4, {"ok": "\U0001f600 and \\ud800, an escaped backslash"})]
    half = "half of a surrogate pair and not a character, which cannot be stored"
    assert problems == [
        f"x.jsonl: line 1: field 'response': holds \\ud800, {half}",
        f"x.jsonl: line 2: field 'turns.1.content': holds \\udfff, {half}",
        f"x.jsonl: line 3: field 'metadata': a key holds \\udbff, {half}",
    ]
