"""`manage.py db_worker`: django-tasks-db's worker, which first imports the modules that some
jobs load slowly (settings.WORKER_PRELOAD: the judge's run path loads Inspect AI, seconds of
CPU). A job queued later then starts at the worker's next poll (every `--interval` seconds, 1 by
default) instead of waiting for those imports; a judge run used to sit "Queued" through them."""

from __future__ import annotations

import os
from importlib import import_module
from typing import Any

from django.conf import settings
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand


class Command(DatabaseWorkerCommand):
    def handle(self, *args: Any, **options: Any) -> None:
        # With --reload (DEBUG's default) the worker runs in the reloader's child: load there.
        if not options.get("reload") or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            for name in settings.WORKER_PRELOAD:
                import_module(name)
        super().handle(*args, **options)
