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
from django.utils.translation import gettext_noop
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

from l2annot.commands import Command as TranslatedCommand

# django-tasks-db's help texts of its options, as it writes them: here so that the catalogue
# holds them and the parser shows them in the shell's language (l2annot.commands).
LIBRARY_HELP = (
    gettext_noop(
        "The queues to process. Separate multiple with a comma. To process all queues, use "
        "'*' (default: %(default)r)"
    ),
    gettext_noop("Queues to exclude. Separate multiple with a comma."),
    gettext_noop(
        "The interval (in seconds) to wait, when there are no tasks in the queue, before "
        "checking for tasks again (default: %(default)r)"
    ),
    gettext_noop(
        "Process all outstanding tasks, then exit. Can be used in combination with --max-tasks."
    ),
    gettext_noop(
        "Reload the worker on code changes. Not recommended for production as tasks may not be "
        "stopped cleanly (default: DEBUG)"
    ),
    gettext_noop("The backend to operate on (default: %(default)r)"),
    gettext_noop("Don't add a small delay at startup."),
    gettext_noop(
        "If provided, the maximum number of tasks the worker will execute before exiting."
    ),
    gettext_noop("Worker id. MUST be unique across worker pool (default: auto-generate)"),
)


class Command(TranslatedCommand, DatabaseWorkerCommand):
    help = gettext_noop(
        "Run the background worker: imports, reports, judge runs and webhook deliveries."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        # With --reload (DEBUG's default) the worker runs in the reloader's child: load there.
        if not options.get("reload") or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            for name in settings.WORKER_STARTUP:
                import_string(name)()
        super().handle(*args, **options)
