from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange.importers import import_l2bench
from interchange.management.commands._common import (
    add_framework_argument,
    framework_from,
    run_import,
)


class Command(BaseCommand):
    help = (
        "Import an L2-Bench folder (l2-bench_tasks.csv and resources_for_tasks/). All or nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and count; write nothing."
        )
        parser.add_argument(
            "--create-missing",
            action="store_true",
            help="Create the sub-competencies the file names by a code the framework lacks "
            "(like 02x, under competency 02), as placeholders to be named.",
        )
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
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
