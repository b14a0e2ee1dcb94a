from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange import offline
from interchange.management.commands._offline import add_study_and_annotator, study_and_annotator


class Command(BaseCommand):
    help = (
        "Record the answers of a filled offline grading workbook as the annotator, through the "
        "same rules as the grading page. All or nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_study_and_annotator(parser)
        parser.add_argument(
            "--submit", action="store_true", help="Submit every response the workbook completes."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study, annotator = study_and_annotator(options)
        report = offline.import_workbook(
            options["file"], study, annotator, submit=options["submit"]
        )
        for line in report.problems:
            self.stderr.write(str(line))
        if report.problems:
            raise CommandError(report.summary())
        for note in report.incomplete:
            self.stderr.write(f"not submitted: {note}")
        self.stdout.write(report.summary())
