"""The "Every Eval Ever" writer: field mapping, intervals, file layout, schema validity."""

import json
from pathlib import Path, PurePosixPath

import jsonschema
import pytest

from core.formats import eee

SCHEMA_FILE = Path(__file__).parent / "eee" / "eval.schema.json"
UUID = "0f6a4c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"


def validate(data: dict) -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(data)


def export(**changes) -> eee.Export:
    values = {
        "benchmark": "l2-bench",
        "dataset_name": "L2-Bench",
        "organization": "Example Teachers",
        "relationship": "third_party",
        "retrieved_at": 1760000000.5,
        "library_version": "0.1.0",
        "study": "Pilot",
        "scored_by": "experts",
    }
    return eee.Export(**{**values, **changes})


def model(**changes) -> eee.ModelResults:
    values = {
        "model": "orion-tutor-2",
        "developer": "Orion Labs",
        "versions": ("2025-11",),
        "results": (
            eee.Result("overall", "L2-Bench", "all", eee.Score(0.75, 0.6, 0.9, 12)),
            eee.Result(
                "layer:task", "L2-Bench task criteria", "task", eee.Score(0.5, None, None, 1)
            ),
        ),
    }
    return eee.ModelResults(**{**values, **changes})


def test_the_schema_copy_is_the_version_the_writer_names():
    assert json.loads(SCHEMA_FILE.read_text())["version"] == eee.SCHEMA_VERSION


def test_a_record_is_valid_against_the_schema():
    validate(eee.record(model(), export()))


def test_a_judge_record_is_valid_and_names_the_judge_and_the_expert_baseline():
    judged = model(
        results=(eee.Result("overall", "L2-Bench", "all", eee.Score(0.8, 0.7, 0.9, 9), 0.7),)
    )
    data = eee.record(judged, export(scored_by="judge", judge=eee.Judge("judge-x", "v4", "r1")))
    validate(data)
    scoring = data["evaluation_results"][0]["metric_config"]["llm_scoring"]
    assert scoring["judges"][0]["model_info"]["id"] == "judge-x"
    assert scoring["expert_baseline"] == 0.7
    assert scoring["additional_details"] == {"prompt_version": "v4", "run_id": "r1"}
    assert scoring["input_prompt"] == "unknown"  # an imported run's prompt is only a label


def test_a_judge_record_carries_the_prompt_the_run_sent():
    judged = model(
        results=(eee.Result("overall", "L2-Bench", "all", eee.Score(0.8, 0.7, 0.9, 9), 0.7),)
    )
    judge = eee.Judge("judge-x", "short@2", "r1", prompt="Is {{response}} {{criterion}}?")
    data = eee.record(judged, export(scored_by="judge", judge=judge))
    validate(data)
    scoring = data["evaluation_results"][0]["metric_config"]["llm_scoring"]
    assert scoring["input_prompt"] == "Is {{response}} {{criterion}}?"


def test_the_score_and_its_interval_map_to_score_details():
    result = eee.record(model(), export())["evaluation_results"][0]
    assert result["evaluation_result_id"] == "overall"
    assert result["score_details"] == {
        "score": 0.75,
        "uncertainty": {
            "num_samples": 12,
            "confidence_interval": {
                "lower": 0.6,
                "upper": 0.9,
                "confidence_level": 0.95,
                "method": eee.INTERVAL_METHOD,
            },
        },
    }
    metric = result["metric_config"]
    assert (metric["min_score"], metric["max_score"], metric["lower_is_better"]) == (0, 1, False)
    assert "llm_scoring" not in metric


def test_a_score_without_an_interval_keeps_only_its_sample_count():
    result = eee.record(model(), export())["evaluation_results"][1]
    assert result["score_details"]["uncertainty"] == {"num_samples": 1}


def test_model_and_source_fields():
    data = eee.record(model(), export(organization_url="https://example.org"))
    assert data["schema_version"] == "0.3.0"
    assert data["model_info"] == {
        "name": "orion-tutor-2",
        "id": "Orion Labs/orion-tutor-2",
        "developer": "Orion Labs",
        "additional_details": {
            "deployment_type": "unknown",
            "model_availability": "unknown",
            "versions": "2025-11",
        },
    }
    assert data["source_metadata"]["source_type"] == "evaluation_run"
    assert data["source_metadata"]["source_organization_name"] == "Example Teachers"
    assert data["source_metadata"]["source_organization_url"] == "https://example.org"
    assert data["source_metadata"]["evaluator_relationship"] == "third_party"
    assert data["retrieved_timestamp"] == "1760000000.5"
    assert data["evaluation_id"] == "l2-bench/Orion Labs_orion-tutor-2/1760000000.5"


def test_a_model_named_with_its_developer_keeps_that_id():
    data = eee.record(model(model="acme/tutor:1", developer=None), export())
    assert data["model_info"]["id"] == "acme/tutor:1"
    assert data["model_info"]["developer"] == "acme"


def test_a_model_without_a_developer_is_refused():
    with pytest.raises(ValueError, match="no developer"):
        eee.record(model(developer=None), export())
    with pytest.raises(ValueError, match="no developer"):
        eee.record(model(developer="unknown"), export())


def test_values_outside_the_schema_are_refused():
    with pytest.raises(ValueError, match="relationship"):
        eee.record(model(), export(relationship="friend"))
    with pytest.raises(ValueError, match="availability"):
        eee.record(model(model_availability="free"), export())
    too_high = (eee.Result("overall", "L2-Bench", "all", eee.Score(1.5, None, None, 1)),)
    with pytest.raises(ValueError, match="outside"):
        eee.record(model(results=too_high), export())


def test_the_file_lies_at_benchmark_developer_model_uuid():
    assert eee.relative_path(model(), export(), UUID) == PurePosixPath(
        "l2-bench", "Orion Labs", "orion-tutor-2", f"{UUID}.json"
    )
    nested = model(model="org/family/name:v1", developer=None)
    assert eee.relative_path(nested, export(), UUID) == PurePosixPath(
        "l2-bench", "org", "family_name_v1", f"{UUID}.json"
    )


def test_a_name_that_is_not_a_uuid4_is_refused():
    with pytest.raises(ValueError, match="UUID"):
        eee.relative_path(model(), export(), "not-a-uuid")


def test_the_same_inputs_write_the_same_bytes(tmp_path):
    first = eee.write_record(tmp_path / "a", model(), export(), UUID)
    second = eee.write_record(tmp_path / "b", model(), export(), UUID)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_text().endswith("}\n")
    assert json.loads(first.read_text()) == eee.record(model(), export())


def test_an_existing_file_is_never_overwritten(tmp_path):
    path = eee.write_record(tmp_path, model(), export(), UUID)
    with pytest.raises(FileExistsError):
        eee.write_record(tmp_path, model(), export(), UUID)
    assert json.loads(path.read_text())["model_info"]["name"] == "orion-tutor-2"


def test_the_schema_check_catches_a_record_missing_what_0_3_0_requires():
    data = eee.record(model(), export())
    del data["model_info"]["additional_details"]["deployment_type"]
    with pytest.raises(jsonschema.ValidationError, match="deployment_type"):
        validate(data)
