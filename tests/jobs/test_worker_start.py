"""The background worker takes a queued job at its next poll: it polls every second, and it has
loaded the judge's run path (Inspect AI, seconds of CPU) before its first job, not during it."""

import sys

import pytest
from django.core.management import call_command, load_command_class
from django_tasks_db.management.commands.db_worker import Worker

pytestmark = pytest.mark.django_db


def test_the_worker_loads_the_judge_before_it_takes_a_job(settings, monkeypatch):
    assert "judging.running" in settings.WORKER_PRELOAD
    monkeypatch.delitem(sys.modules, "judging.running", raising=False)
    monkeypatch.setattr(Worker, "configure_signals", lambda worker: None)  # pytest's own stay
    taken = []
    monkeypatch.setattr(
        Worker, "run", lambda worker: taken.append("judging.running" in sys.modules)
    )

    call_command("db_worker", "--batch", "--no-startup-delay")

    assert taken == [True]


def test_the_worker_polls_every_second():
    command = load_command_class("jobs", "db_worker")
    assert command.create_parser("manage.py", "db_worker").parse_args([]).interval == 1
