from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interchange.backup import BackupError, restore_study


class Command(BaseCommand):
    help = (
        "Load a file written by backup_study into an empty (freshly migrated) database, all or "
        "nothing. Restored users have no usable password: set one, or create a superuser."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="The backup file.")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        try:
            with path.open(encoding="utf-8") as source:
                study, count = restore_study(source)
        except BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Study {study['id']} ({study['name']}): {count} rows restored")
