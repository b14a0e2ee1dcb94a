"""Model results in the "Every Eval Ever" (EEE) aggregate JSON schema, one file per model.

EEE (github.com/evaleval/every_eval_ever) stores one JSON record per evaluated model at
``<benchmark>/<developer>/<model>/<uuid4>.json`` under the datastore's ``data/`` folder. A record
names the model, who produced the figures and how, and holds a list of evaluation results, each
with its score, the metric's bounds and the score's uncertainty.

This writer takes figures already computed (the L2-Bench score of a model with its 95%
interval, overall and per group) and turns them into records; it computes nothing. Output is
deterministic: the same inputs (the file's UUID and timestamp included) give the same bytes.

Beside each aggregate record, the model's instance-level records (one per response it gave in
the study, with that response's score) go to ``<uuid>_samples.jsonl`` in the same folder, which
the aggregate names in ``detailed_evaluation_results`` (with its SHA-256 and row count). A text
response is a ``single_turn`` record (``output.raw``); a dialogue a ``multi_turn`` record
(``messages``, ``output`` null, one answer attribution per tutor turn).

Written against schema version 0.3.0 (``eval.schema.json`` of the ``every-eval-ever`` 0.3.0
package) and its instance-level schema (``instance_level_eval.schema.json``). Where the schema
requires a value this tool does not know, it writes the value the
schema defines for "unknown" (``deployment_type``, ``model_availability``) or the word
``unknown`` where the schema offers no such value (the judge's prompt template).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = [
    "DEPLOYMENT_TYPES",
    "EVALUATOR_RELATIONSHIPS",
    "MODEL_AVAILABILITIES",
    "SCHEMA_VERSION",
    "Export",
    "Instance",
    "Judge",
    "ModelResults",
    "Result",
    "Score",
    "dumps",
    "instance_record",
    "model_id",
    "record",
    "relative_path",
    "samples_path",
    "write_record",
]

SCHEMA_VERSION = "0.3.0"
INSTANCE_SCHEMA_VERSION = "0.3.0"  # instance_level_eval.schema.json of the same package
EVALUATOR_RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")
DEPLOYMENT_TYPES = ("self_deployed", "externally_managed", "unknown")
MODEL_AVAILABILITIES = ("open_weights", "closed_weights", "unknown")
UNKNOWN = "unknown"

# EEE refuses these in a folder name (Windows-unsafe characters, control characters).
#: How the leaderboard's intervals are computed (core.stats.intervals.mean_bounds).
INTERVAL_METHOD = (
    "Wilson score interval of the mean at the responses' effective sample size (L2 Annot)"
)
_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f]')
_UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Score:
    """A model's mean score (0 to 1) over `n_responses` responses, with its interval (None when
    it is withheld: fewer responses than the interval's simulated coverage was checked at)."""

    mean: float
    low: float | None
    high: float | None
    n_responses: int
    standard_error: float | None = None
    method: str = ""  # how the interval is computed; INTERVAL_METHOD when empty


@dataclass(frozen=True)
class Result:
    """One evaluation result of a model: the whole benchmark or one group of it."""

    key: str  # evaluation_result_id, stable within a record: "overall", "competency:01"
    name: str  # evaluation_name
    description: str
    score: Score
    expert_baseline: float | None = None  # the experts' score, when a judge gave `score`
    # How the score was reached, as the schema's `score_details.details` (strings): the
    # prediction-powered scores' n labelled and unlabelled, lambda, method.
    details: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Judge:
    model: str
    prompt_version: str = ""
    run_id: str = ""
    prompt: str = ""  # the prompt template's text, when the run knows it


@dataclass(frozen=True)
class Export:
    """What every record of one export shares: where the figures come from and who gives them."""

    benchmark: str  # the datastore folder and evaluation id prefix, e.g. "l2-bench"
    dataset_name: str  # e.g. "L2-Bench"
    organization: str
    relationship: str  # one of EVALUATOR_RELATIONSHIPS
    retrieved_at: float  # Unix time the records were made
    library_version: str
    study: str
    scored_by: str  # "experts" or "judge"
    confidence_level: float = 0.95
    organization_url: str | None = None
    evaluated_at: str | None = None  # ISO 8601
    judge: Judge | None = None


@dataclass(frozen=True)
class Instance:
    """One response of the model, as scored: its task, what it said, and its task score.

    `turns` (role, content) for a dialogue, else `text`. `score` is the response's L2-Bench
    task score (clipped at 0), by the export's source."""

    sample_id: str  # the task key, and the epoch when above 1: "901", "901#2"
    task: str  # the task's instruction as published
    reference: str
    score: float
    text: str = ""
    turns: tuple[tuple[str, str], ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ModelResults:
    model: str  # the model's name as recorded with its responses
    results: tuple[Result, ...]
    developer: str | None = None
    versions: tuple[str, ...] = ()
    deployment_type: str = UNKNOWN
    model_availability: str = UNKNOWN
    instances: tuple[Instance, ...] = field(default=(), compare=False)


def model_id(model: str, developer: str | None) -> str:
    """The model's id in the Hugging Face form ``developer/model`` that EEE asks for.

    A name that already has a ``/`` is taken as such an id. Raises ValueError when neither the
    name nor `developer` says who the developer is (EEE files a record under its developer).
    """
    if "/" in model:
        return model
    if not developer or not developer.strip() or developer.strip().lower() == UNKNOWN:
        raise ValueError(f"model {model!r} has no developer: EEE files each model under one")
    return f"{developer.strip()}/{model}"


def _folder(name: str) -> str:
    cleaned = _UNSAFE.sub("_", name.strip()).rstrip(". ")
    if cleaned in {"", ".", ".."}:
        raise ValueError(f"{name!r} cannot be a folder name")
    return cleaned


def relative_path(model: ModelResults, export: Export, file_uuid: str) -> PurePosixPath:
    """``<benchmark>/<developer>/<model>/<uuid>.json``: the developer is the id's first part,
    the rest of the id (slashes made underscores) is the model folder, as EEE lays them out."""
    if not _UUID4.match(file_uuid):
        raise ValueError(f"{file_uuid!r} is not a lower-case UUID version 4")
    developer, _, name = model_id(model.model, model.developer).partition("/")
    folders = [_folder(export.benchmark), _folder(developer), _folder(name.replace("/", "_"))]
    return PurePosixPath(*folders, f"{file_uuid}.json")


def samples_path(model: ModelResults, export: Export, file_uuid: str) -> PurePosixPath:
    """The instance-level file beside the aggregate: ``<uuid>_samples.jsonl``."""
    aggregate = relative_path(model, export, file_uuid)
    return aggregate.with_name(f"{file_uuid}_samples.jsonl")


def _evaluation_id(model: ModelResults, export: Export) -> str:
    identifier = model_id(model.model, model.developer)
    return f"{export.benchmark}/{identifier.replace('/', '_')}/{_timestamp(export.retrieved_at)}"


def instance_record(instance: Instance, model: ModelResults, export: Export) -> dict[str, Any]:
    """The EEE instance-level record of one response."""
    if not 0.0 <= instance.score <= 1.0:
        raise ValueError(f"score {instance.score} of sample {instance.sample_id!r} is outside 0..1")
    reference = [instance.reference] if instance.reference else []
    digest = hashlib.sha256((instance.task + "".join(reference)).encode("utf-8")).hexdigest()
    method = "llm_judge" if export.judge is not None else "human_expert_grading"
    data: dict[str, Any] = {
        "schema_version": INSTANCE_SCHEMA_VERSION,
        "evaluation_id": _evaluation_id(model, export),
        "model_id": model_id(model.model, model.developer),
        "evaluation_name": export.dataset_name,
        "evaluation_result_id": "overall",  # the aggregate's result it is a sample of
        "sample_id": instance.sample_id,
        "sample_hash": digest,
    }
    if instance.turns:
        messages = [
            {"turn_idx": n, "role": role, "content": content}
            for n, (role, content) in enumerate(instance.turns)
        ]
        tutor = [n for n, (role, _) in enumerate(instance.turns) if role == "assistant"]
        data |= {
            "interaction_type": "multi_turn",
            "input": {"raw": instance.task, "reference": reference},
            "output": None,
            "messages": messages,
            "answer_attribution": [
                {
                    "turn_idx": n,
                    "source": f"messages[{n}].content",
                    "extracted_value": instance.turns[n][1],
                    "extraction_method": method,
                    "is_terminal": n == tutor[-1],
                }
                for n in tutor
            ],
        }
    else:
        data |= {
            "interaction_type": "single_turn",
            "input": {"raw": instance.task, "reference": reference},
            "output": {"raw": [instance.text]},
            "messages": None,
            "answer_attribution": [
                {
                    "turn_idx": 0,
                    "source": "output.raw",
                    "extracted_value": instance.text,
                    "extraction_method": method,
                    "is_terminal": True,
                }
            ],
        }
    evaluation: dict[str, Any] = {"score": instance.score, "is_correct": instance.score >= 1.0}
    if instance.turns:
        evaluation["num_turns"] = len(instance.turns)
    data["evaluation"] = evaluation
    if instance.metadata:
        data["metadata"] = dict(instance.metadata)
    return data


def _samples_text(model: ModelResults, export: Export) -> str:
    return "".join(
        json.dumps(instance_record(i, model, export), ensure_ascii=False, allow_nan=False) + "\n"
        for i in model.instances
    )


def _detailed(model: ModelResults, export: Export, file_uuid: str) -> dict[str, Any]:
    text = _samples_text(model, export)
    return {
        "format": "jsonl",
        "file_path": f"data/{samples_path(model, export, file_uuid)}",
        "hash_algorithm": "sha256",
        "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "total_rows": len(model.instances),
    }


def _timestamp(seconds: float) -> str:
    return repr(float(seconds))


def _model_details(
    deployment_type: str, availability: str, extra: dict[str, str]
) -> dict[str, str]:
    if deployment_type not in DEPLOYMENT_TYPES:
        raise ValueError(f"deployment type {deployment_type!r} is not one of {DEPLOYMENT_TYPES}")
    if availability not in MODEL_AVAILABILITIES:
        raise ValueError(f"availability {availability!r} is not one of {MODEL_AVAILABILITIES}")
    return {"deployment_type": deployment_type, "model_availability": availability, **extra}


def _uncertainty(score: Score, export: Export) -> dict[str, Any]:
    uncertainty: dict[str, Any] = {"num_samples": score.n_responses}
    if score.low is not None and score.high is not None:
        uncertainty["confidence_interval"] = {
            "lower": score.low,
            "upper": score.high,
            "confidence_level": export.confidence_level,
            "method": score.method or INTERVAL_METHOD,
        }
    if score.standard_error is not None:
        uncertainty["standard_error"] = {"value": score.standard_error, "method": "analytic"}
    return uncertainty


def _llm_scoring(judge: Judge, expert_baseline: float | None) -> dict[str, Any]:
    details = {
        key: value
        for key, value in (("prompt_version", judge.prompt_version), ("run_id", judge.run_id))
        if value
    }
    judge_info: dict[str, Any] = {"name": judge.model, "id": judge.model}
    judge_info["additional_details"] = _model_details(UNKNOWN, UNKNOWN, {})
    scoring: dict[str, Any] = {
        "judges": [{"model_info": judge_info}],
        # A run made by L2 Annot knows the prompt it sent; an imported one may not, and the
        # schema requires one.
        "input_prompt": judge.prompt or UNKNOWN,
    }
    if expert_baseline is not None:
        scoring["expert_baseline"] = expert_baseline
    if details:
        scoring["additional_details"] = details
    return scoring


def _result(result: Result, export: Export) -> dict[str, Any]:
    if not 0.0 <= result.score.mean <= 1.0:
        raise ValueError(f"score {result.score.mean} of {result.name!r} is outside 0..1")
    metric: dict[str, Any] = {
        "evaluation_description": result.description,
        "metric_id": "l2bench.score",
        "metric_name": "L2-Bench score",
        "metric_kind": "rubric_score",
        "metric_unit": "proportion",
        "lower_is_better": False,
        "score_type": "continuous",
        "min_score": 0.0,
        "max_score": 1.0,
    }
    if export.judge is not None:
        metric["llm_scoring"] = _llm_scoring(export.judge, result.expert_baseline)
    return {
        "evaluation_result_id": result.key,
        "evaluation_name": result.name,
        "source_data": {
            "dataset_name": export.dataset_name,
            "source_type": "other",
            "additional_details": {"study": export.study, "scored_by": export.scored_by},
        },
        "metric_config": metric,
        "score_details": {
            "score": result.score.mean,
            "uncertainty": _uncertainty(result.score, export),
        }
        | ({"details": dict(result.details)} if result.details else {}),
    }


def record(model: ModelResults, export: Export, file_uuid: str | None = None) -> dict[str, Any]:
    """The EEE aggregate record of one model; with `file_uuid` and instances, naming its
    instance-level file. Raises ValueError on a value the schema refuses."""
    if export.relationship not in EVALUATOR_RELATIONSHIPS:
        raise ValueError(
            f"evaluator relationship {export.relationship!r} is not one of "
            f"{', '.join(EVALUATOR_RELATIONSHIPS)}"
        )
    if not model.results:
        raise ValueError(f"model {model.model!r} has no result")
    identifier = model_id(model.model, model.developer)
    retrieved = _timestamp(export.retrieved_at)
    extra = {"versions": ", ".join(model.versions)} if model.versions else {}
    info: dict[str, Any] = {"name": model.model, "id": identifier}
    info["developer"] = model.developer or identifier.partition("/")[0]
    info["additional_details"] = _model_details(
        model.deployment_type, model.model_availability, extra
    )
    source: dict[str, Any] = {
        "source_name": "L2 Annot",
        "source_type": "evaluation_run",
        "source_organization_name": export.organization,
        "evaluator_relationship": export.relationship,
        "additional_details": {"scored_by": export.scored_by, "study": export.study},
    }
    if export.organization_url:
        source["source_organization_url"] = export.organization_url
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": _evaluation_id(model, export),
    }
    if export.evaluated_at:
        data["evaluation_timestamp"] = export.evaluated_at
    data.update(
        {
            "retrieved_timestamp": retrieved,
            "source_metadata": source,
            "eval_library": {"name": "l2annot", "version": export.library_version or UNKNOWN},
            "model_info": info,
            "evaluation_results": [_result(result, export) for result in model.results],
        }
    )
    if file_uuid is not None and model.instances:
        data["detailed_evaluation_results"] = _detailed(model, export, file_uuid)
    return data


def dumps(data: dict[str, Any]) -> str:
    """The record as EEE files it: indented JSON, no NaN or infinity, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_record(folder: Path, model: ModelResults, export: Export, file_uuid: str) -> Path:
    """Write the record of `model` under `folder` at its EEE path, and its instance-level
    records beside it when it has any; refuse to overwrite."""
    text = dumps(record(model, export, file_uuid))
    path = folder.joinpath(*relative_path(model, export, file_uuid).parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    if model.instances:
        samples = folder.joinpath(*samples_path(model, export, file_uuid).parts)
        with samples.open("x", encoding="utf-8", newline="\n") as out:
            out.write(_samples_text(model, export))
    with path.open("x", encoding="utf-8", newline="\n") as out:
        out.write(text)
    return path
