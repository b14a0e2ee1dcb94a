from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from grading.commands import STUDY_HELP, study_argument
from interchange import grades_export
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write a study's grades (one row per grade) and per-response scores: CSV (grades, or "
        "scores with --scores) or XLSX (a sheet of each). Names the models; annotators are "
        "pseudonymised unless the study shows grader names."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument("--format", choices=("csv", "xlsx"), default="csv")
        parser.add_argument("--output", type=Path, required=True, metavar="FILE")
        parser.add_argument(
            "--scores",
            action="store_true",
            help=gettext_noop("CSV only: the scores instead of the grades."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        path = Path(options["output"])
        if options["format"] == "xlsx":
            if options["scores"]:
                raise CommandError(gettext("--scores is for CSV: the workbook has a Scores sheet."))
            grades_export.write_xlsx(study, path)
        else:
            with path.open("w", encoding="utf-8", newline="") as out:
                grades_export.write_csv(study, out, scores=options["scores"])
        self.stdout.write(
            gettext("Study %(id)s written to %(path)s") % {"id": study.pk, "path": path}
        )
