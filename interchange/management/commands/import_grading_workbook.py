from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from interchange import offline
from interchange.jobs import tell_command_import
from interchange.management.commands._offline import add_study_and_annotator, study_and_annotator
from interchange.models import ImportJob
from interchange.problem_text import message_text, nothing_imported, problem_text
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Record the answers of a filled offline grading workbook as the annotator, through the "
        "same rules as the grading page. All or nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_study_and_annotator(parser)
        parser.add_argument(
            "--submit",
            action="store_true",
            help=gettext_noop("Submit every response the workbook completes."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study, annotator = study_and_annotator(options)
        report = offline.import_workbook(
            options["file"], study, annotator, submit=options["submit"]
        )
        tell_command_import(ImportJob.Kind.OFFLINE, options["file"].name, report)
        for problem in report.problems:
            self.stderr.write(problem_text(problem))
        if report.problems:
            raise CommandError(nothing_imported(len(report.problems)))
        for note in report.incomplete:
            self.stderr.write(gettext("not submitted: %(reason)s") % {"reason": message_text(note)})
        self.stdout.write(" ".join(message_text(note) for note in report.notes))
