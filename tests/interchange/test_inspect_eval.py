import json
import zipfile

import pytest

from core.formats.inspect_eval import read_inspect_eval
from core.formats.responses import ResponseRecord
from core.formats.verdicts import VerdictRecord


def header(**eval_changes):
    spec = {"task": "l2_bench", "run_id": "run-1", "model": "provider/model-a"}
    spec |= {"model_roles": {"grader": {"model": "provider/judge-x"}}}
    return {"version": 2, "status": "success", "eval": spec | eval_changes}


def sample(task_key="12", epoch=1, results=None, **changes):
    results = (
        results
        if results is not None
        else [
            {"criterion_id": f"{task_key}-01", "weight": 3, "judgement": True, "explanation": "ok"},
            {"criterion_id": "06u1", "weight": -2, "judgement": False},
        ]
    )
    scores = {"l2_scorer": {"value": 0.5, "metadata": {"scoring_results": results}}}
    output = {"completion": f"Generated response to {task_key}"}
    return {"id": task_key, "epoch": epoch, "scores": scores, "output": output} | changes


def eval_file(folder, head=None, samples=(), name="run.eval"):
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        if head is not False:
            archive.writestr("header.json", json.dumps(head or header()))
        for s in samples:
            archive.writestr(f"samples/{s.get('id')}_epoch_{s.get('epoch')}.json", json.dumps(s))
    return path


def messages(result):
    return [str(p) for p in result.problems]


def test_a_sample_gives_one_verdict_per_scoring_result(tmp_path):
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample(epoch=2)]))
    assert messages(result) == []
    assert result.verdicts == (
        VerdictRecord("12-01", True, "provider/judge-x", task_key="12", model="provider/model-a",
                      epoch=2, rationale="ok", run_id="run-1", weight=3),
        VerdictRecord("06u1", False, "provider/judge-x", task_key="12", model="provider/model-a",
                      epoch=2, run_id="run-1", weight=-2),
    )  # fmt: skip


def test_the_sample_output_becomes_the_evaluated_response(tmp_path):
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample()]))
    assert result.responses == (
        ResponseRecord("12", "provider/model-a", response="Generated response to 12"),
    )


def test_the_header_names_evaluated_model_judge_run_and_task(tmp_path):
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample()]))
    found = (result.task, result.run_id, result.evaluated_model, result.judge_model)
    assert found == ("l2_bench", "run-1", "provider/model-a", "provider/judge-x")


def test_the_judge_may_come_from_the_task_arguments(tmp_path):
    head = header(model_roles=None, task_args={"judge_model": "j2", "prompt_version": "p3"})
    result = read_inspect_eval(eval_file(tmp_path, head, [sample()]))
    assert (result.judge_model, result.prompt_version) == ("j2", "p3")
    assert {v.judge_model for v in result.verdicts} == {"j2"}


def test_a_log_without_a_judge_is_reported_unless_the_caller_names_one(tmp_path):
    path = eval_file(tmp_path, header(model_roles=None), [sample()])
    (problem,) = messages(read_inspect_eval(path))
    assert problem.startswith("run.eval: header.json: field 'eval.model_roles': no judge model")
    given = read_inspect_eval(path, judge_model="j-by-hand")
    assert (given.problems, len(given.verdicts)) == ((), 2)


def test_a_log_without_the_evaluated_model_is_reported(tmp_path):
    result = read_inspect_eval(eval_file(tmp_path, header(model=None), [sample()]))
    assert messages(result) == [
        "run.eval: header.json: field 'eval.model': the evaluated model is missing"
    ]
    assert result.verdicts == ()


def test_a_run_that_did_not_succeed_is_reported(tmp_path):
    head = header() | {"status": "cancelled"}
    assert messages(read_inspect_eval(eval_file(tmp_path, head, [sample()]))) == [
        "run.eval: header.json: field 'status': the run's status is 'cancelled', not 'success'"
    ]


def test_a_file_that_is_not_a_zip_archive_is_reported(tmp_path):
    (tmp_path / "run.eval").write_text("{}")
    assert messages(read_inspect_eval(tmp_path / "run.eval")) == [
        "run.eval: not a ZIP archive (an Inspect .eval log is one)"
    ]


def test_an_archive_without_header_is_reported(tmp_path):
    result = read_inspect_eval(eval_file(tmp_path, head=False, samples=[sample()]))
    assert messages(result) == ["run.eval: has no header.json: is it an Inspect AI .eval log?"]


def test_a_member_that_is_not_json_is_reported(tmp_path):
    path = eval_file(tmp_path, samples=[sample()])
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("samples/13_epoch_1.json", "{broken")
    (problem,) = messages(read_inspect_eval(path))
    assert problem.startswith("run.eval: samples/13_epoch_1.json: not valid JSON (")


def test_a_sample_without_scoring_results_is_reported(tmp_path):
    bare = sample(scores={"match": {"value": "C"}})
    assert messages(read_inspect_eval(eval_file(tmp_path, samples=[bare]))) == [
        "run.eval: samples/12_epoch_1.json: field 'scores': expected exactly one score with "
        "metadata.scoring_results, found none"
    ]


def test_two_scores_with_scoring_results_need_the_scorer_named(tmp_path):
    two = sample()
    two["scores"]["other"] = two["scores"]["l2_scorer"]
    path = eval_file(tmp_path, samples=[two])
    assert "found l2_scorer, other" in messages(read_inspect_eval(path))[0]
    assert len(read_inspect_eval(path, scorer="other").verdicts) == 2


@pytest.mark.parametrize(
    ("result", "field", "message"),
    [
        ({"weight": 1, "judgement": True}, "criterion_id", "expected text, got null"),
        ({"criterion_id": "c", "weight": "1", "judgement": True}, "weight",
         "expected an integer, got '1'"),
        ({"criterion_id": "c", "weight": 1, "judgement": "maybe"}, "judgement",
         "'maybe' is not true or false (also pass/fail, yes/no)"),
    ],
)  # fmt: skip
def test_a_wrong_scoring_result_names_its_place(tmp_path, result, field, message):
    path = eval_file(tmp_path, samples=[sample(results=[result])])
    assert messages(read_inspect_eval(path)) == [
        f"run.eval: samples/12_epoch_1.json: field "
        f"'scores.l2_scorer.metadata.scoring_results[0].{field}': {message}"
    ]


def test_a_criterion_judged_twice_in_a_sample_is_reported(tmp_path):
    twice = [{"criterion_id": "c", "weight": 1, "judgement": True}] * 2
    (problem,) = messages(read_inspect_eval(eval_file(tmp_path, samples=[sample(results=twice)])))
    assert problem.endswith("criterion_id': criterion 'c' is judged twice")


def test_a_sample_without_id_or_epoch_is_reported_for_both(tmp_path):
    bad = sample()
    del bad["id"], bad["epoch"]
    assert len(read_inspect_eval(eval_file(tmp_path, samples=[bad])).problems) == 2


def test_a_sample_that_ended_in_an_error_is_reported(tmp_path):
    failed = sample(error={"message": "rate limited"})
    assert messages(read_inspect_eval(eval_file(tmp_path, samples=[failed]))) == [
        "run.eval: samples/12_epoch_1.json: field 'error': the sample ended in an error: "
        "'rate limited'"
    ]


def test_every_sample_is_read_and_every_problem_kept(tmp_path):
    samples = [sample("1"), sample("2", results=[{"criterion_id": "x"}]), sample("3", epoch=2)]
    result = read_inspect_eval(eval_file(tmp_path, samples=samples))
    assert {(v.task_key, v.epoch) for v in result.verdicts} == {("1", 1), ("3", 2)}
    assert len(result.problems) == 2  # sample 2: weight and judgement


def test_a_null_judgement_is_an_unreadable_answer_kept_as_no_verdict(tmp_path):
    unreadable = [{"criterion_id": "c", "weight": 1, "judgement": None, "explanation": "hmm"}]
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample(results=unreadable)]))
    assert result.problems == ()
    (verdict,) = result.verdicts
    assert (verdict.verdict, verdict.rationale) == (None, "hmm")


def test_a_stated_probability_is_read_and_any_other_value_is_none(tmp_path):
    stated = [0.8, 1, 1.5, -0.1, "0.5", True, None, float("nan")]
    results = [
        {"criterion_id": f"c{n}", "weight": 1, "judgement": True, "probability": value}
        for n, value in enumerate(stated)
    ] + [{"criterion_id": "unasked", "weight": 1, "judgement": True}]
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample(results=results)]))
    assert result.problems == ()
    assert [(v.verdict, v.pass_probability) for v in result.verdicts] == [
        (True, 0.8),
        (True, 1.0),
        *[(True, None)] * 7,
    ]


def test_a_sample_naming_a_stored_response_gives_verdicts_on_it_and_no_response(tmp_path):
    judging = [sample(f"{n}-7", metadata={"response_id": f"resp-{n}"}) for n in range(2)]
    judging[1]["metadata"]["task_key"] = "12"
    result = read_inspect_eval(eval_file(tmp_path, samples=judging))
    assert result.problems == () and result.responses == ()
    assert {(v.response_id, v.task_key) for v in result.verdicts} == {
        ("resp-0", None),
        ("resp-1", "12"),
    }


def test_a_sample_naming_the_version_it_judged_gives_verdicts_on_that_version(tmp_path):
    named = {"response_id": "resp-1", "task_key": "12", "response_version": 2}
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample("s-1", metadata=named)]))
    assert result.problems == ()
    assert {(v.response_id, v.response_version) for v in result.verdicts} == {("resp-1", 2)}


@pytest.mark.parametrize(("version", "shown"), [(0, "0"), ("2", "'2'"), (True, "true")])
def test_a_response_version_that_is_not_a_version_is_reported(tmp_path, version, shown):
    named = {"response_id": "resp-1", "response_version": version}
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample("s-1", metadata=named)]))
    assert [(p.field, str(p.message)) for p in result.problems] == [
        ("metadata.response_version", f"expected an integer >= 1, got {shown}")
    ]
    assert result.verdicts == ()


def test_a_nul_in_a_sample_is_reported_at_its_member_and_field(tmp_path):
    broken = sample(task_key="13", output={"completion": "Gen\u0000erated"})
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample(), broken]))
    assert messages(result) == [
        "run.eval: samples/13_epoch_1.json: field 'output.completion': "
        "holds the NUL character (\\u0000), which the database cannot store"
    ]


def test_half_a_surrogate_pair_in_a_sample_is_reported_at_its_member_and_field(tmp_path):
    broken = sample(task_key="13", output={"completion": "Gen\ud800erated"})
    paired = sample(task_key="14", output={"completion": "An emoji \U0001f600, escaped as a pair"})
    result = read_inspect_eval(eval_file(tmp_path, samples=[sample(), broken, paired]))
    assert messages(result) == [
        "run.eval: samples/13_epoch_1.json: field 'output.completion': holds \\ud800, half of "
        "a surrogate pair and not a character, which cannot be stored"
    ]
    assert [r.task_key for r in result.responses] == ["12", "14"]
