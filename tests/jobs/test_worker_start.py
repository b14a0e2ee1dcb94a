"""The background worker takes a queued job at its next poll: it polls every second, and it has
loaded the judge's run path (Inspect AI, seconds of CPU) and started the process a large run's
children fork from before its first job, not during it; no such process when JUDGE_PROCESSES
keeps every run in the worker's process."""

import sys
from multiprocessing import forkserver

import pytest
from django.core.management import call_command, load_command_class
from django_tasks_db.management.commands.db_worker import Worker

pytestmark = pytest.mark.django_db


def test_the_worker_makes_the_judge_ready_before_it_takes_a_job(monkeypatch, settings):
    settings.JUDGE_PROCESSES = 2
    monkeypatch.delitem(sys.modules, "judging.running", raising=False)
    monkeypatch.setattr(Worker, "configure_signals", lambda worker: None)  # pytest's own stay
    ready = []

    def run(worker):
        ready.append(("judging.running" in sys.modules, forkserver._forkserver._forkserver_pid))

    monkeypatch.setattr(Worker, "run", run)

    call_command("db_worker", "--batch", "--no-startup-delay")

    ((loaded, forkserver_pid),) = ready
    assert loaded and forkserver_pid is not None


def test_the_worker_polls_every_second():
    command = load_command_class("jobs", "db_worker")
    assert command.create_parser("manage.py", "db_worker").parse_args([]).interval == 1


def test_a_worker_whose_runs_stay_in_its_process_starts_no_process_for_children(
    monkeypatch, settings
):
    settings.JUDGE_PROCESSES = 1
    started = []
    monkeypatch.setattr(forkserver, "ensure_running", lambda: started.append("forkserver"))
    monkeypatch.setattr(Worker, "configure_signals", lambda worker: None)
    monkeypatch.setattr(Worker, "run", lambda worker: None)

    call_command("db_worker", "--batch", "--no-startup-delay")

    assert started == []
