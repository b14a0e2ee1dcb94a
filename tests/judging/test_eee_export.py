"""The EEE export of a graded study: the leaderboard's figures, one valid record per model."""

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from django.core.management import CommandError, call_command

from grading import services as grading
from grading.models import Study, Verdict
from judging import eee_export
from judging.calibration import study_leaderboard
from judging.models import JudgeRun, JudgeVerdict, PromptVersion
from rubrics.models import Response
from rubrics.services import record_response
from tests.factories import demo_benchmark_and_graders, grade_study

pytestmark = pytest.mark.django_db

SCHEMA = json.loads(
    (Path(__file__).parent.parent / "interchange" / "eee" / "eval.schema.json").read_text()
)
INSTANCE_SCHEMA = json.loads(
    (
        Path(__file__).parent.parent / "interchange" / "eee" / "instance_level_eval.schema.json"
    ).read_text()
)


@pytest.fixture(scope="module")
def graded_study(module_db: None) -> Study:
    """Two demo models, two responses each, graded by two annotators; the second annotator
    fails the universal criteria of one model, so the graders disagree on it. Built once."""
    starter_framework, graders = demo_benchmark_and_graders(2)
    responses = [
        response
        for name in ("orion-tutor-2", "kestrel-large")
        for response in Response.objects.filter(model_name=name).order_by("pk")[:2]
    ]
    study = grading.create_study(
        name="EEE pilot",
        framework=starter_framework,
        responses=responses,
        annotators=graders,
        overlap=2,
        seed=1,
        require_rationale_on_fail=False,
        likert_prompts=[],
    )
    grading.assign_study(study)

    def verdict(index, assignment, _, line):
        kestrel = assignment.study_item.response.model_name == "kestrel-large"
        harsh = index == 1 and kestrel and line.layer == "universal"
        return Verdict.FAIL if harsh else Verdict.PASS

    grade_study(study, graders, verdict, rationale="why")
    return study


@pytest.fixture
def study(graded_study: Study) -> Study:
    return Study.objects.get(pk=graded_study.pk)


@pytest.fixture
def judge_run(study):
    run = JudgeRun.objects.create(judge_model="judge-x", prompt_version="v4")
    for item in study.items.all():
        for line in item.rubric_version.effective_rubric():
            verdict = line.layer != "task" or item.response.model_name == "orion-tutor-2"
            JudgeVerdict.objects.create(
                run=run, response=item.response, criterion_version=line.version, verdict=verdict
            )
    return run


def records(folder: Path) -> dict[str, dict]:
    found = {}
    for path in sorted(folder.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found[data["model_info"]["name"]] = data | {"_path": path.relative_to(folder)}
    return found


def by_id(data: dict) -> dict[str, dict]:
    return {result["evaluation_result_id"]: result for result in data["evaluation_results"]}


def test_each_model_gets_one_valid_record_at_its_eee_path(study, tmp_path):
    call_command("export_eee", str(study.pk), str(tmp_path), organization="Example Teachers")
    found = records(tmp_path)
    assert set(found) == {"orion-tutor-2", "kestrel-large"}
    for data in found.values():
        path = data.pop("_path")
        jsonschema.Draft7Validator(SCHEMA).validate(data)
        developer = data["model_info"]["developer"]
        assert path.parts[:3] == ("l2-bench", developer, data["model_info"]["name"])
        assert data["source_metadata"]["source_organization_name"] == "Example Teachers"
    assert found["orion-tutor-2"]["model_info"]["developer"] == "Orion Labs"
    assert found["kestrel-large"]["model_info"]["additional_details"]["versions"] == "1.3"


def samples(folder: Path, data: dict) -> list[dict]:
    detailed = data["detailed_evaluation_results"]
    path = folder / Path(detailed["file_path"]).relative_to("data")
    text = path.read_text(encoding="utf-8")
    assert detailed["checksum"] == hashlib.sha256(text.encode()).hexdigest()
    rows = [json.loads(line) for line in text.splitlines()]
    assert detailed["total_rows"] == len(rows)
    for row in rows:
        jsonschema.Draft7Validator(INSTANCE_SCHEMA).validate(row)
        assert row["evaluation_id"] == data["evaluation_id"]
    return rows


def test_each_response_is_an_instance_record_beside_the_aggregate(study, tmp_path):
    call_command("export_eee", str(study.pk), str(tmp_path))
    found = records(tmp_path)
    rows = samples(tmp_path, found["kestrel-large"])
    assert [row["interaction_type"] for row in rows] == ["single_turn", "single_turn"]
    assert rows[0]["output"]["raw"][0] in set(
        Response.objects.filter(model_name="kestrel-large").values_list("text", flat=True)
    )
    # the leaderboard's mean is the mean of the instance scores
    overall = by_id(found["kestrel-large"])["overall"]["score_details"]["score"]
    assert overall == pytest.approx(sum(row["evaluation"]["score"] for row in rows) / 2)


def test_an_instance_record_names_the_response_version_graded(study, tmp_path):
    graded = study.items.filter(response__model_name="kestrel-large").first().response
    record_response(
        graded.task,
        graded.model_name,
        text="Rewritten after grading.",
        external_id=graded.external_id,
        model_family=graded.model_family,
        model_version=graded.model_version,
    )
    call_command("export_eee", str(study.pk), str(tmp_path))
    rows = samples(tmp_path, records(tmp_path)["kestrel-large"])
    assert {row["metadata"]["response_version"] for row in rows} == {"1"}
    mine = [row for row in rows if row["metadata"]["response_id"] == graded.external_id]
    assert [row["output"]["raw"][0] for row in mine] == [graded.text]


def test_a_dialogue_graded_turn_by_turn_is_a_multi_turn_instance_record(study, tmp_path):
    grader = study.pool.first().annotator
    dialogues = Response.objects.filter(kind="conversation", task__key="903")
    assert dialogues.count() == 2
    talk = grading.create_study(
        name="EEE dialogues",
        framework=study.framework,
        responses=dialogues,
        annotators=[grader],
        overlap=1,
        likert_prompts=[],
        require_rationale_on_fail=False,
    )
    grading.assign_study(talk)
    grade_study(talk, [grader], lambda *_: Verdict.PASS)
    call_command("export_eee", str(talk.pk), str(tmp_path))
    found = records(tmp_path)
    (row,) = samples(tmp_path, found["basalt-chat-7b"])
    assert (row["interaction_type"], row["output"], row["sample_id"]) == ("multi_turn", None, "903")
    assert [m["role"] for m in row["messages"]] == ["user", "assistant"] * 3
    assert row["evaluation"]["num_turns"] == 6
    tutor = [a["turn_idx"] for a in row["answer_attribution"]]
    assert tutor == [1, 3, 5]
    assert [a["is_terminal"] for a in row["answer_attribution"]] == [False, False, True]
    assert row["answer_attribution"][1]["source"] == "messages[3].content"


def test_the_exported_scores_are_the_leaderboards(study, tmp_path):
    call_command("export_eee", "EEE pilot", str(tmp_path))
    board = study_leaderboard(study, None)
    found = records(tmp_path)
    for row in board.rows:
        overall = by_id(found[row.model])["overall"]["score_details"]
        assert overall["score"] == row.experts.mean
        # Two responses: the leaderboard withholds the interval (unreliable), so does the record.
        assert row.experts.low is None and row.experts.unreliable_reason is not None
        assert "confidence_interval" not in overall["uncertainty"]
        assert overall["uncertainty"]["num_samples"] == row.experts.n_responses == 2
    layers = dict(board.breakdowns)["Layer"]
    universal = next(b for b in layers if b.label == "universal")
    kestrel = next(r for r in universal.rows if r.model == "kestrel-large")
    exported = by_id(found["kestrel-large"])["layer:universal"]["score_details"]["score"]
    assert exported == kestrel.experts.mean


def test_competencies_and_layers_are_results_of_their_own(study, tmp_path):
    call_command("export_eee", str(study.pk), str(tmp_path))
    results = by_id(records(tmp_path)["orion-tutor-2"])
    assert "layer:task" in results and "layer:universal" in results
    competencies = [key for key in results if key.startswith("competency:")]
    assert competencies
    assert results[competencies[0]]["evaluation_name"].startswith("L2-Bench competency ")


def test_a_judge_run_made_here_exports_the_prompt_it_sent(study, judge_run, tmp_path):
    prompt = PromptVersion.objects.get(template__name="reference-guided")
    JudgeRun.objects.filter(pk=judge_run.pk).update(prompt=prompt)
    call_command("export_eee", str(study.pk), str(tmp_path), source="judge")
    for data in records(tmp_path).values():
        scoring = by_id(data)["overall"]["metric_config"]["llm_scoring"]
        assert scoring["input_prompt"] == prompt.text


def test_a_judge_export_carries_the_judge_and_the_expert_baseline(study, judge_run, tmp_path):
    call_command("export_eee", str(study.pk), str(tmp_path), source="judge")
    board = study_leaderboard(study, judge_run)
    found = records(tmp_path)
    for row in board.rows:
        overall = by_id(found[row.model])["overall"]
        assert overall["score_details"]["score"] == row.judge.mean
        scoring = overall["metric_config"]["llm_scoring"]
        assert scoring["judges"][0]["model_info"]["name"] == "judge-x"
        assert scoring["expert_baseline"] == row.experts.mean
        assert scoring["input_prompt"] == "unknown"
    found["kestrel-large"].pop("_path")
    jsonschema.Draft7Validator(SCHEMA).validate(found["kestrel-large"])


def test_several_judge_runs_need_one_chosen(study, judge_run, tmp_path):
    other = JudgeRun.objects.create(judge_model="judge-y")
    item = study.items.first()
    line = next(iter(item.rubric_version.effective_rubric()))
    JudgeVerdict.objects.create(
        run=other, response=item.response, criterion_version=line.version, verdict=True
    )
    with pytest.raises(CommandError, match="several judge runs"):
        call_command("export_eee", str(study.pk), str(tmp_path), source="judge")
    call_command("export_eee", str(study.pk), str(tmp_path), source="judge", judge_run=other.pk)
    assert {
        d["evaluation_results"][0]["metric_config"]["llm_scoring"]["judges"][0]["model_info"]["id"]
        for d in records(tmp_path).values()
    } == {"judge-y"}


def test_an_unknown_study_fails_with_a_clear_message(db, tmp_path):
    with pytest.raises(CommandError, match="No study with id or name 'nope'"):
        call_command("export_eee", "nope", str(tmp_path))
    assert not any(tmp_path.iterdir())


def test_a_judge_export_without_verdicts_fails_and_writes_nothing(study, tmp_path):
    with pytest.raises(CommandError, match="No judge run"):
        call_command("export_eee", str(study.pk), str(tmp_path), source="judge")
    assert not any(tmp_path.iterdir())


def test_a_model_without_a_developer_stops_the_export_until_one_is_given(study, tmp_path):
    Response.objects.filter(model_name="kestrel-large").update(model_family="")
    with pytest.raises(CommandError, match=r"kestrel-large.*--developer"):
        call_command("export_eee", str(study.pk), str(tmp_path))
    assert not any(tmp_path.iterdir())
    call_command("export_eee", str(study.pk), str(tmp_path), "--developer", "kestrel-large=kai")
    assert records(tmp_path)["kestrel-large"]["model_info"]["id"] == "kai/kestrel-large"


def test_the_judge_run_option_belongs_to_judge_exports(study, judge_run, tmp_path):
    with pytest.raises(CommandError, match="--source judge"):
        call_command("export_eee", str(study.pk), str(tmp_path), judge_run=judge_run.pk)


def test_the_export_needs_a_known_source(study, tmp_path):
    with pytest.raises(eee_export.ExportProblem, match="Unknown source"):
        eee_export.export(study, tmp_path, eee_export.Options(source="crowd"))
