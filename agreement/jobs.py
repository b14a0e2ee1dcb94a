"""Background work of the agreement app, run by the tasks worker (`manage.py db_worker`)."""

from django.db import transaction
from django.tasks import task

from agreement import cache
from agreement.models import AnalysisSettings
from agreement.services import study_report
from grading.models import Study


@task()
def compute_study_report(study_id: int) -> None:
    """Compute and cache a study's agreement report so its page opens at once."""
    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        study_report(study)


def request_study_report(study: Study) -> None:
    """Ask the worker for the report, once per study state."""
    if cache.claim_computation(cache.report_key(study, AnalysisSettings.for_study(study))):
        transaction.on_commit(lambda: compute_study_report.enqueue(study.pk))
