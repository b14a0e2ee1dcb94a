from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext_noop, ngettext

from judging.prompt_files import all_files, version_file
from judging.services import find_prompt
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write judge prompts as Markdown files with a YAML front matter (docs/formats.md): "
        "every version of every prompt as DIR/<name>/v<number>.md, or the latest of each "
        "(--latest) or the versions named as DIR/<name>.md."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dir", type=Path, help=gettext_noop("folder to write into"))
        parser.add_argument(
            "prompts",
            nargs="*",
            metavar="NAME[@NUMBER]",
            help=gettext_noop("only these versions (a name alone: its latest version)"),
        )
        parser.add_argument(
            "--latest",
            action="store_true",
            help=gettext_noop("the latest version of every prompt, as DIR/<name>.md"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            versions = [find_prompt(reference) for reference in options["prompts"]]
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        if versions:
            files = [version_file(version) for version in versions]
        else:
            files = all_files(latest_only=options["latest"])
        folder: Path = options["dir"]
        for name, content in files:
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode("utf-8"))  # as written: no newline translation
        self.stdout.write(
            ngettext(
                "Wrote %(count)d prompt file in %(dir)s.",
                "Wrote %(count)d prompt files in %(dir)s.",
                len(files),
            )
            % {"count": len(files), "dir": folder}
        )
