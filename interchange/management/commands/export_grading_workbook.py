from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop, ngettext

from interchange import offline
from interchange.management.commands._offline import add_study_and_annotator, study_and_annotator
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write an annotator's work in a study to a signed .xlsx workbook for offline grading."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        add_study_and_annotator(parser)
        parser.add_argument(
            "--all",
            action="store_true",
            help=gettext_noop("Also the submitted responses (default: unfinished)."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if path.suffix.lower() != ".xlsx":
            raise CommandError(gettext("The file name must end in .xlsx."))
        study, annotator = study_and_annotator(options)
        count = offline.write_workbook(path, study, annotator, unfinished_only=not options["all"])
        self.stdout.write(
            ngettext(
                "%(count)s response written to %(path)s",
                "%(count)s responses written to %(path)s",
                count,
            )
            % {"count": count, "path": path}
        )
