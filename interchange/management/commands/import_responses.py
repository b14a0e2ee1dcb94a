from pathlib import Path
from typing import Any

from django.utils.translation import gettext_noop

from interchange.importers import import_responses
from interchange.management.commands._common import (
    DRY_RUN_HELP,
    add_framework_argument,
    framework_from,
    run_import,
)
from interchange.models import ImportJob
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop("Import model responses from a JSONL file. All or nothing.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        framework = framework_from(options["framework"])
        run_import(
            self,
            lambda progress: import_responses(
                options["file"], framework, dry_run=options["dry_run"], progress=progress
            ),
            options,
            kind=ImportJob.Kind.RESPONSES,
            file=options["file"],
        )
