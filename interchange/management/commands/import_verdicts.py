from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from interchange.importers import import_verdicts
from interchange.management.commands._common import (
    add_framework_argument,
    framework_from,
    run_import,
)


class Command(BaseCommand):
    help = "Import judge verdicts from a JSONL file or an Inspect AI .eval log. All or nothing."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--dry-run", action="store_true", help="Check and count; write nothing."
        )
        parser.add_argument("--judge-model", help="The judge, when an .eval log does not name it.")
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        framework = framework_from(options["framework"])
        run_import(
            self,
            lambda progress: import_verdicts(
                options["file"],
                framework,
                judge_model=options["judge_model"],
                dry_run=options["dry_run"],
                progress=progress,
            ),
            options,
        )
