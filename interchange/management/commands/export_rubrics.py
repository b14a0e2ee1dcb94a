from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange.exporters import export_rubrics_xlsx
from interchange.management.commands._common import add_framework_argument, framework_from


class Command(BaseCommand):
    help = "Write the rubrics to an .xlsx workbook: a task sheet and one sheet per layer."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_framework_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if path.suffix.lower() != ".xlsx":
            raise CommandError("The file name must end in .xlsx.")
        export_rubrics_xlsx(framework_from(options["framework"]), path)
        self.stdout.write(f"Rubrics written to {path}")
