"""A study as a Hugging Face dataset folder: Parquet files and a card that `datasets` reads
back (offline, its cache in a temporary folder), from the command and from the page."""

import io
import zipfile

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import Role
from accounts.services import create_user_with_role
from agreement.services import final_labels
from grading import services as grading
from grading.models import GoldVerdict, Study, Verdict
from judging.calibration import study_leaderboard
from judging.models import JudgeRun, JudgeVerdict
from tests import factories

MODELS = ("kestrel", "osprey")
PER_MODEL = 4  # responses of each model; the study grades the first two of each


def expert_verdict(grader: int, response_pk: int, position: int) -> str:
    """Both experts pass all but the first criterion; on it they disagree on odd responses."""
    if position == 0 and response_pk % 2 == 1:
        return Verdict.FAIL if grader == 0 else Verdict.PASS
    return Verdict.PASS if position else Verdict.FAIL


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    task = factories.published_task(criteria=3)
    responses = {m: [factories.response(task, m) for _ in range(PER_MODEL)] for m in MODELS}
    graders = [create_user_with_role(f"expert{n}", "pw", Role.ANNOTATOR) for n in range(2)]
    study = grading.create_study(
        name="Dataset study",
        framework=task.framework,
        responses=[r for model in MODELS for r in responses[model][:2]],
        annotators=graders,
        overlap=2,
        seed=1,
        require_rationale_on_fail=False,
    )
    grading.assign_study(study)
    factories.grade_study(
        study,
        graders,
        lambda index, assignment, position, _: expert_verdict(
            index, assignment.study_item.response.pk, position
        ),
        likert=lambda *_: 4,
    )
    rubric = [line for line in task.effective_rubric() if line.applicable]
    run = JudgeRun.objects.create(judge_model="judge-m", prompt_version="v1")
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(run=run, response=r, criterion_version=line.version, verdict=position > 0)
        for model in MODELS
        for r in responses[model]
        for position, line in enumerate(rubric)
    )
    return {"study": study.pk, "run": run.pk}


@pytest.fixture
def offline_datasets(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    return datasets


@pytest.mark.django_db
def test_the_command_writes_a_folder_that_datasets_loads(world, tmp_path, offline_datasets):
    study = Study.objects.get(pk=world["study"])
    # An adjudicator confirms the experts' pass on the last unit, saying why they split.
    item = study.items.order_by("pk").last()
    GoldVerdict.objects.create(
        study_item=item,
        criterion_version=list(item.rubric_version.effective_rubric())[-1].version,
        verdict=Verdict.PASS,
        split_reason="grader_slip",
        confidence="high",
    )
    folder = tmp_path / "dataset"
    call_command("export_dataset", str(study.pk), str(folder), "--license", "cc-by-4.0")
    names = ("labels", "calibration", "prediction_powered")
    cache = str(tmp_path / "cache")
    loaded = {  # each configuration is a dataset of its own (its own columns)
        name: offline_datasets.load_dataset(
            "parquet",
            data_files=str(folder / "data" / f"{name}.parquet"),
            split="train",
            cache_dir=cache,
        )
        for name in ("labels", "prediction_powered")
    }
    # The card's YAML header names the configurations: the folder loads by name too.
    loaded["calibration"] = offline_datasets.load_dataset(
        str(folder), "calibration", split="train", cache_dir=cache
    )
    labels = final_labels(study)
    assert loaded["labels"].num_rows == len(labels) == 12  # 4 responses x 3 criteria
    first = loaded["labels"][0]
    assert first["basis"] in ("unanimous", "tied") and len(first["experts"]) == 2
    gold = ("gold", "split_reason", "split_reason_label", "confidence")
    assert [[row[key] for key in gold] for row in loaded["labels"] if row["gold"]] == [
        ["pass", "grader_slip", "Grader slip", "high"]
    ]
    assert {row["split_reason"] for row in loaded["labels"] if not row["gold"]} == {None}
    # The calibration set: every judge verdict on a unit with a final label, the experts'
    # label beside it; the tied units (first criterion, odd responses) are left out.
    tied = sum(1 for found in labels if found.label is None)
    calibration = loaded["calibration"]
    assert tied == 2 and calibration.num_rows == len(labels) - tied
    for row in calibration:
        expected = "pass" if row["criterion"] != labels[0].unit.criterion.code else "fail"
        assert row["judge_verdict"] == expected
        assert row["expert_label"] == ("fail" if expected == "fail" else "pass")
    # The prediction-powered scores, as the leaderboard computes them.
    board = study_leaderboard(study, JudgeRun.objects.get(pk=world["run"]))
    overall = [row for row in loaded["prediction_powered"] if row["group"] == "overall"]
    for row in overall:
        ppi = next(r for r in board.rows if r.model == row["model"]).ppi
        assert ppi is not None and ppi.score is not None
        assert row["prediction_powered_score"] == pytest.approx(ppi.score.estimate)
        assert row["judged_only_responses_unlabelled"] == 2
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.startswith('---\nlicense: "cc-by-4.0"\n')
    for name in names:
        assert f'- config_name: "{name}"\n  data_files: data/{name}.parquet' in card
    assert "k = 2 experts" in card and "12 graded (response, criterion) units" in card
    assert "Krippendorff's alpha" in card and "judge-m" in card


@pytest.mark.django_db
def test_the_study_page_downloads_the_folder_as_a_zip(world, client_as, settings):
    settings.DATASET_LICENSE = "other"
    response = client_as(Role.MAINTAINER).get(reverse("agreement:dataset", args=[world["study"]]))
    assert response["Content-Disposition"] == 'attachment; filename="dataset-dataset-study.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert set(archive.namelist()) == {
        "README.md",
        "data/labels.parquet",
        "data/calibration.parquet",
        "data/prediction_powered.parquet",
    }
    assert archive.read("README.md").decode().startswith('---\nlicense: "other"')
    labels = pq.read_table(io.BytesIO(archive.read("data/labels.parquet")))
    assert labels.num_rows == 12 and "experts" in labels.column_names
