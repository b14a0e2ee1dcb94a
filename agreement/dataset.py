"""A study as a Hugging Face dataset folder (core.analysis.dataset, core.formats.hf_dataset):
its final labels, the judges' verdicts beside the experts' labels, the prediction-powered
scores, and a card with the design, n and coefficients. The `export_dataset` command writes the
folder; the study's agreement page downloads it as a ZIP."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings

from agreement.judge_parts import judge_answers, judge_parts
from agreement.services import final_labels, study_report
from core.analysis.dataset import StudyDesign, study_card, study_tables
from core.analysis.export import judge_calibration_rows
from core.formats.hf_dataset import write_dataset
from grading.models import Study


def study_design(study: Study) -> StudyDesign:
    return StudyDesign(
        name=study.name,
        description=study.description,
        framework=str(study.framework),
        status=study.get_status_display(),
        overlap=study.overlap,
        gold_rate=study.gold_rate,
        escalation=str(study.get_escalation_display()),
        created_at=study.created_at.date().isoformat(),
    )


def write_study_dataset(study: Study, folder: Path, licence: str | None = None) -> list[Path]:
    """Write the dataset folder of `study` into `folder`; returns the files written. The
    licence is `licence`, else settings.DATASET_LICENSE."""
    labels = final_labels(study)
    answers = judge_answers(
        study,
        sorted({found.unit.response_id for found in labels}),
        sorted({found.unit.criterion.key for found in labels}),
    )
    judges = judge_parts(study)  # the judge app's (agreement.judge_parts)
    tables = study_tables(labels, answers, judges.leaderboards)
    overall = study_report(study).overall if labels else None
    calibrations = [judge_calibration_rows(summary)[0] for summary in judges.calibrations]
    card = study_card(
        study_design(study), licence or settings.DATASET_LICENSE, overall, calibrations, tables
    )
    return write_dataset(folder, tables, card)


def study_dataset_zip(study: Study) -> bytes:
    """The dataset folder as a ZIP (a download): README.md and data/ at its root."""
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="l2annot-dataset-") as workdir:
        root = Path(workdir)
        files = write_study_dataset(study, root)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, path.relative_to(root).as_posix())
    return buffer.getvalue()
