from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange.backup import BackupError, restore_study


class Command(BaseCommand):
    help = (
        "Load an archive written by backup_study into an empty (freshly migrated) database and "
        "its resource files into MEDIA_ROOT, all or nothing. Restored users have no usable "
        "password: set one, or create a superuser."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="The backup (.zip, or an older .json).")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        try:
            summary = restore_study(path)
        except BackupError as error:
            raise CommandError(str(error)) from None
        for name in summary.files_not_in_backup:
            self.stderr.write(f"warning: not in the backup, copy it into MEDIA_ROOT: {name}")
        study = summary.study
        self.stdout.write(
            f"Study {study['id']} ({study['name']}): {summary.rows} rows restored, "
            f"{summary.files_written} resource files written to MEDIA_ROOT"
            + (f" ({summary.files_present} already there)" if summary.files_present else "")
        )
