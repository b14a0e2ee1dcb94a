from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from core.formats.prompt_files import SUFFIX
from core.messages import os_error_reason
from judging.prompt_files import PromptFilesRefused, import_prompt_files, unpacked
from l2annot.commands import Command as TranslatedCommand
from l2annot.shown import message_text


def prompt_paths(paths: list[Path]) -> list[Path]:
    """The files named, and the .md files under each folder named (sorted, so an import reads
    them in the same order everywhere)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob(f"*{SUFFIX}") if p.is_file())
        else:
            found.append(path)
    return found


class Command(TranslatedCommand):
    help = gettext_noop(
        "Import judge prompts from Markdown files with a YAML front matter, folders of them or "
        "ZIP archives (docs/formats.md). A file equal to the version it names changes "
        "nothing; any other is its prompt's next version. All or nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths", nargs="+", type=Path, help=gettext_noop(".md files, folders or .zip files")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        files = []
        for path in prompt_paths(options["paths"]):
            try:
                files += unpacked(str(path), path.read_bytes())
            except OSError as error:
                raise CommandError(
                    gettext("%(path)s: %(reason)s")
                    % {"path": path, "reason": message_text(os_error_reason(error))}
                ) from None
            except PromptFilesRefused as refused:
                raise CommandError("\n".join(refused.messages)) from None
        try:
            imported = import_prompt_files(files, by=None)
        except PromptFilesRefused as refused:
            raise CommandError(
                "\n".join(
                    [*refused.messages, gettext("Nothing was imported: fix the files and retry.")]
                )
            ) from None
        for item in imported:
            line = (
                gettext("%(file)s: new version %(version)s")
                if item.made
                else gettext("%(file)s: unchanged, %(version)s")
            )
            self.stdout.write(line % {"file": item.file, "version": item.version})
        made = sum(item.made for item in imported)
        self.stdout.write(
            gettext("%(made)s new versions, %(same)s unchanged.")
            % {"made": made, "same": len(imported) - made}
        )
