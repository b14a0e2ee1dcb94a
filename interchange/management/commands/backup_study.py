from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop

from grading.commands import STUDY_HELP, study_argument
from interchange.backup import backup_study
from interchange.backup_files import BackupError
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write one study and everything it needs (taxonomy, tasks and their resource files, "
        "criteria, rubric versions, responses, judge verdicts, assignments, grades, ratings, gold "
        "verdicts, annotators without passwords, analysis settings) to a zip archive that "
        "restore_study loads."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument("--output", type=Path, required=True, metavar="FILE.zip")
        parser.add_argument(
            "--allow-missing-files",
            action="store_true",
            help=gettext_noop(
                "Back up even when resource files are missing from MEDIA_ROOT (listed as such)."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        path = Path(options["output"])
        try:
            with path.open("wb") as out:
                summary = backup_study(
                    study, out, allow_missing_files=options["allow_missing_files"]
                )
        except BackupError as error:
            path.unlink(missing_ok=True)
            raise CommandError(str(error)) from None
        for name in summary.missing_files:
            self.stderr.write(
                gettext("warning: resource file missing from MEDIA_ROOT, not backed up: %(name)s")
                % {"name": name}
            )
        self.stdout.write(
            gettext(
                "Study %(id)s (%(name)s): %(rows)s rows and %(files)s resource files written to "
                "%(path)s"
            )
            % {
                "id": study.pk,
                "name": study.name,
                "rows": summary.rows,
                "files": summary.files,
                "path": path,
            }
        )
