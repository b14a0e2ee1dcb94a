"""What the import and export commands share: choosing the framework, drawing the progress bar,
printing a report and failing with every problem."""

import os
from argparse import ArgumentParser
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import InterfaceError, OperationalError

from interchange.importers.report import ImportReport, Progress
from interchange.progress import TextProgressBar
from taxonomy.models import Framework


def environment_language(environ: Mapping[str, str] = os.environ) -> str:
    """The interface language the shell asks for (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, in the
    order gettext reads them: `es_ES.UTF-8` is Spanish) when the app ships it; else
    LANGUAGE_CODE. A command that speaks to the person running it speaks their language."""
    shipped = {code for code, _ in settings.LANGUAGES}
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for wanted in environ.get(name, "").split(":"):
            code = wanted.split(".")[0].split("@")[0].split("_")[0].lower()
            if code in shipped:
                return code
    return settings.LANGUAGE_CODE


def add_framework_argument(parser: ArgumentParser) -> None:
    parser.add_argument(
        "--framework", metavar="CODE", help="The framework's code (needed when there are several)."
    )


def framework_from(code: str | None) -> Framework:
    try:
        return Framework.objects.chosen(code)
    except Framework.DoesNotExist:
        if code:
            raise CommandError(f"No framework with code '{code}'.") from None
        found = "none exists"
    except Framework.MultipleObjectsReturned:
        found = "there are several"
    raise CommandError(f"Give the framework with --framework CODE ({found}).")


class _NoNewline:
    """The command's stderr, written without the line ending Django adds to each write."""

    def __init__(self, wrapper: Any) -> None:
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, ending="")

    def flush(self) -> None:
        self.wrapper.flush()


def run_import(
    command: BaseCommand, run: Callable[[Progress], ImportReport], options: dict[str, Any]
) -> None:
    """Run an import with a progress bar on stderr; exit non-zero listing every problem."""
    bar = TextProgressBar(_NoNewline(command.stderr)) if options.get("verbosity", 1) else None
    try:
        report = run(bar or (lambda done, total, stage: None))
    except (InterfaceError, OperationalError) as error:
        # The server went away (restart, network): the import's transaction never committed.
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        raise CommandError(
            f"The database connection was lost during the import ({first_line}). The import "
            "is all or nothing and did not commit: run it again once the database answers "
            "(re-running an import that did commit changes nothing)."
        ) from None
    finally:
        if bar:
            bar.close()
    for note in report.notes:
        command.stderr.write(f"note: {note}")
    if report.problems:
        for line in report.problem_lines():
            command.stderr.write(line)
        raise CommandError(report.summary())
    command.stdout.write(report.summary())
