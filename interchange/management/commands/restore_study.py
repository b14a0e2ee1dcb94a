from pathlib import Path
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext, gettext_noop, ngettext

from interchange.backup import restore_study
from interchange.backup_files import BackupError
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Load an archive written by backup_study into an empty (freshly migrated) database and "
        "its resource files into MEDIA_ROOT, all or nothing. Restored users have no usable "
        "password and no role: create a superuser, who grants roles and sends set-password links."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "file", type=Path, help=gettext_noop("The backup (.zip, or an older .json).")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(gettext("No file %(path)s.") % {"path": path})
        try:
            summary = restore_study(path)
        except BackupError as error:
            raise CommandError(str(error)) from None
        for name in summary.files_not_in_backup:
            self.stderr.write(
                gettext("warning: not in the backup, copy it into MEDIA_ROOT: %(name)s")
                % {"name": name}
            )
        values = {
            "id": summary.study["id"],
            "name": summary.study["name"],
            "rows": summary.rows,
            "written": summary.files_written,
            "present": summary.files_present,
        }
        if summary.files_present:
            done = gettext(
                "Study %(id)s (%(name)s): %(rows)s rows restored, %(written)s resource files "
                "written to MEDIA_ROOT (%(present)s already there)"
            )
        else:
            done = gettext(
                "Study %(id)s (%(name)s): %(rows)s rows restored, %(written)s resource files "
                "written to MEDIA_ROOT"
            )
        self.stdout.write(done % values)
        if summary.people:
            self.stdout.write(
                ngettext(
                    "%(count)s person restored without a role: %(people)s. Check the email "
                    "address before sending a set-password link, then grant the role on the "
                    "People page (an admin's).",
                    "%(count)s people restored without a role: %(people)s. Check each email "
                    "address before sending set-password links, then grant roles on the People "
                    "page (an admin's).",
                    len(summary.people),
                )
                % {
                    "count": len(summary.people),
                    "people": ", ".join(
                        f"{username} ({email})" if email else username
                        for username, email in summary.people
                    ),
                }
            )
