"""`manage.py db_worker`: django-tasks-db's worker, which first calls the functions that make
ready what some jobs would otherwise load slowly (settings.WORKER_STARTUP: the judge's run path
loads Inspect AI, seconds of CPU, and starts the process its children fork from). A job queued
later then starts at the worker's next poll (every `--interval` seconds, 1 by default) instead
of waiting for them; a judge run used to sit "Queued" through the import."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django.utils.module_loading import import_string
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand


class Command(DatabaseWorkerCommand):
    def handle(self, *args: Any, **options: Any) -> None:
        # With --reload (DEBUG's default) the worker runs in the reloader's child: load there.
        if not options.get("reload") or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            for name in settings.WORKER_STARTUP:
                import_string(name)()
        super().handle(*args, **options)
