from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from interchange.importers import import_l2bench
from interchange.management.commands._common import (
    DRY_RUN_HELP,
    add_framework_argument,
    framework_from,
    run_import,
)
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Import an L2-Bench folder (l2-bench_tasks.csv and resources_for_tasks/). All or nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
        parser.add_argument(
            "--create-missing",
            action="store_true",
            help=gettext_noop(
                "Create the sub-competencies the file names by a code the framework lacks "
                "(like 02x, under competency 02), as placeholders to be named."
            ),
        )
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(gettext("%(path)s is not a folder.") % {"path": folder})
        framework = framework_from(options["framework"])
        run_import(
            self,
            lambda progress: import_l2bench(
                folder,
                framework,
                dry_run=options["dry_run"],
                create_missing=options["create_missing"],
                progress=progress,
            ),
            options,
        )
