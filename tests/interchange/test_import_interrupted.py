"""An import cut short by the database (a restart, a lost connection): nothing of it stays,
neither rows nor resource files, and the command says so in one line."""

import dataclasses

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from interchange import jobs
from interchange.importers import benchmark, import_l2bench
from interchange.models import ImportJob
from interchange.problem_text import problem_text
from rubrics.models import Task
from tests.factories import benchmark_folder, generated, make_job

pytestmark = pytest.mark.django_db


def with_binary_resources(n: int = 4) -> list:
    """Generated tasks, each with a resource stored as a file in MEDIA_ROOT (not markdown)."""
    return [
        dataclasses.replace(t, resource_files=(f"figure_{t.task_key}.png",)) for t in generated(n)
    ]


def lose_the_connection(*args, **kwargs):
    raise OperationalError("terminating connection due to administrator command")


def test_resource_files_are_removed_when_publishing_fails(
    tmp_path, settings, starter_framework, monkeypatch
):
    settings.MEDIA_ROOT = tmp_path / "media"
    folder = benchmark_folder(tmp_path / "bench", with_binary_resources())
    monkeypatch.setattr(benchmark, "publish_imported", lose_the_connection)
    with pytest.raises(OperationalError):
        import_l2bench(folder, starter_framework)
    assert not Task.objects.exists()
    assert [p for p in settings.MEDIA_ROOT.rglob("*") if p.is_file()] == []


def test_resource_files_stay_when_the_import_commits(tmp_path, settings, starter_framework):
    settings.MEDIA_ROOT = tmp_path / "media"
    report = import_l2bench(
        benchmark_folder(tmp_path / "bench", with_binary_resources()), starter_framework
    )
    assert report.ok, report.problem_lines()
    assert len([p for p in settings.MEDIA_ROOT.rglob("*") if p.is_file()]) == 4


def test_a_lost_connection_ends_the_command_with_one_clear_line(
    tmp_path, starter_framework, monkeypatch
):
    monkeypatch.setattr(benchmark, "publish_imported", lose_the_connection)
    with pytest.raises(CommandError, match="database connection was lost during the import"):
        call_command("import_l2bench", str(benchmark_folder(tmp_path, generated(2))), verbosity=0)
    assert not Task.objects.exists()


@pytest.mark.django_db(transaction=True)  # the job's own connection is closed and reopened
def test_a_background_job_cut_off_by_a_database_restart_ends_failed(starter_framework, monkeypatch):
    job = make_job(
        starter_framework,
        kind=ImportJob.Kind.BENCHMARK,
        status=ImportJob.Status.QUEUED,
        file="2026/01/none.zip",
    )
    monkeypatch.setattr(jobs, "_run", lose_the_connection)
    finish, tries = jobs._finish, []

    def finish_once_the_server_is_back(*args, **kwargs):
        tries.append(1)
        if len(tries) == 1:  # still restarting
            raise OperationalError("the database system is starting up")
        finish(*args, **kwargs)

    monkeypatch.setattr(jobs, "_finish", finish_once_the_server_is_back)
    monkeypatch.setattr(jobs.time, "sleep", lambda seconds: None)
    with pytest.raises(OperationalError):
        jobs.run_import_job.call(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    shown = problem_text(job.problems[0])
    assert "the connection to the database was lost during the import" in shown
    assert "terminating connection" not in shown  # words, not the driver's message
