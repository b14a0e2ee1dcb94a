from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange import offline
from interchange.management.commands._offline import add_study_and_annotator, study_and_annotator


class Command(BaseCommand):
    help = "Write an annotator's work in a study to a signed .xlsx workbook for offline grading."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_study_and_annotator(parser)
        parser.add_argument(
            "--all", action="store_true", help="Also the submitted responses (default: unfinished)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if path.suffix.lower() != ".xlsx":
            raise CommandError("The file name must end in .xlsx.")
        study, annotator = study_and_annotator(options)
        count = offline.write_workbook(path, study, annotator, unfinished_only=not options["all"])
        self.stdout.write(f"{count} response{'s' if count != 1 else ''} written to {path}")
