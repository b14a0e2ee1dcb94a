"""The judge run as a background job on the worker (`manage.py db_worker`), enqueued by
`judging.runs.start_run` once the run is committed."""

from __future__ import annotations

from django.tasks import task


@task()
def run_judge_job(run_pk: int) -> None:
    # Imported here, not at the top: Inspect AI takes seconds to load, and the web process,
    # which only enqueues this job, should not pay for it.
    from judging.running import execute_run

    execute_run(run_pk)
