"""What the import and export commands share: choosing the framework, drawing the progress bar,
printing a report and failing with every problem."""

from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import InterfaceError, OperationalError
from django.utils.translation import gettext, gettext_noop

from interchange.importers.report import ImportReport, Progress
from interchange.jobs import tell_command_import
from interchange.problem_text import (
    changed_criterion_text,
    message_text,
    new_version_text,
    problem_text,
    report_summary,
    stage_text,
    stored_problems,
)
from interchange.progress import TextProgressBar
from taxonomy.models import Framework

DRY_RUN_HELP = gettext_noop("Check and count; write nothing.")


def add_framework_argument(parser: ArgumentParser) -> None:
    parser.add_argument(
        "--framework",
        metavar="CODE",
        help=gettext_noop("The framework's code (needed when there are several)."),
    )


def framework_from(code: str | None) -> Framework:
    try:
        return Framework.objects.chosen(code)
    except Framework.DoesNotExist:
        if code:
            raise CommandError(
                gettext("No framework with code '%(code)s'.") % {"code": code}
            ) from None
        raise CommandError(
            gettext("Give the framework with --framework CODE (none exists).")
        ) from None
    except Framework.MultipleObjectsReturned:
        raise CommandError(
            gettext("Give the framework with --framework CODE (there are several).")
        ) from None


class _NoNewline:
    """The command's stderr, written without the line ending Django adds to each write."""

    def __init__(self, wrapper: Any) -> None:
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, ending="")

    def flush(self) -> None:
        self.wrapper.flush()


def run_import(
    command: BaseCommand,
    run: Callable[[Progress], ImportReport],
    options: dict[str, Any],
    *,
    kind: str,
    file: Path,
) -> None:
    """Run an import with a progress bar on stderr; exit non-zero listing every problem. The
    webhooks are told of its end as of an import from the page (`kind`, the name of `file`)."""
    bar = TextProgressBar(_NoNewline(command.stderr)) if options.get("verbosity", 1) else None

    def progress(done: int, total: int, stage: str) -> None:
        if bar:
            bar(done, total, stage_text(stage))

    try:
        report = run(progress)
    except (InterfaceError, OperationalError) as error:
        # The server went away (restart, network): the import's transaction never committed.
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        raise CommandError(
            gettext(
                "The database connection was lost during the import (%(error)s). The import "
                "is all or nothing and did not commit: run it again once the database answers "
                "(re-running an import that did commit changes nothing)."
            )
            % {"error": first_line}
        ) from None
    except Exception:
        tell_command_import(kind, file.name, None)
        raise
    finally:
        if bar:
            bar.close()
    tell_command_import(kind, file.name, report)
    for note in report.notes:
        command.stderr.write(gettext("note: %(note)s") % {"note": message_text(note)})
    if report.problems:
        for problem in stored_problems(report.problems):
            command.stderr.write(problem_text(problem))
        raise CommandError(report_summary(report))
    if report.new_versions:
        command.stdout.write(
            gettext("Responses that would get a new version (what was graded stays as it is):")
            if report.dry_run
            else gettext("Responses given a new version (what was graded stays as it was):")
        )
        for found in report.new_versions:
            command.stdout.write("  " + new_version_text(found.as_json(), report.dry_run))
    if report.changed_criteria:
        command.stdout.write(
            gettext(
                "Criteria the import would change (each change a draft version for review; "
                "published versions stay as they are):"
            )
            if report.dry_run
            else gettext(
                "Criteria the import changed (each change a draft version for review; "
                "published versions stay as they were):"
            )
        )
        for changed in report.changed_criteria:
            command.stdout.write("  " + changed_criterion_text(changed.as_json(), report.dry_run))
    command.stdout.write(report_summary(report))
