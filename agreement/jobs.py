"""Background work of the agreement app, run by the tasks worker (`manage.py db_worker`)."""

from django.core.cache import cache
from django.db import transaction
from django.tasks import task

from agreement.services import report_key, study_report
from grading.models import Study

PENDING_SECONDS = 600  # a report asked for but not delivered by then is asked for again


@task()
def compute_study_report(study_id: int) -> None:
    """Compute and cache a study's agreement report so its page opens at once."""
    study = Study.objects.filter(pk=study_id).first()
    if study is not None:
        study_report(study)


def request_study_report(study: Study) -> None:
    """Ask the worker for the report, once per study state."""
    key, _ = report_key(study)
    if cache.add(f"pending:{key}", True, timeout=PENDING_SECONDS):
        transaction.on_commit(lambda: compute_study_report.enqueue(study.pk))
