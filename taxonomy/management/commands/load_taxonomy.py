from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop

from l2annot.commands import Command as TranslatedCommand
from l2annot.shown import message_text
from taxonomy import services
from taxonomy.commands import nothing_loaded
from taxonomy.models import Framework
from taxonomy.seedfile import SeedFileError, read_context_variables, read_scales, read_taxonomy

# The parts of a framework the command loads, in the order it loads them.
PARTS = ("taxonomy", "scales", "context_variables")


def starter_files() -> dict[str, Path | None]:
    """The shipped starter set, which a bare `load_taxonomy` loads (as `make run` does)."""
    fixtures = Path(settings.BASE_DIR) / "fixtures"
    return {
        "taxonomy": fixtures / "taxonomy.json",
        "scales": fixtures / "proficiency_scales.json",
        "context_variables": fixtures / "context_variables.json",
    }


def partly_loaded(
    error: SeedFileError,
    step: str,
    code: str,
    files: dict[str, Path | None],
    *,
    needs_scales: bool,
) -> str:
    """Why the part `step` (scales or context variables) was not loaded, after the parts the
    command printed were, and the command that loads what is left."""
    problems = "\n".join(message_text(problem) for problem in error.problems)
    if step == "scales" and files["context_variables"]:
        said = gettext(
            "The proficiency scales were not loaded, nor the context variables after them "
            "(what is listed above was):\n%(problems)s"
        )
    elif step == "scales":
        said = gettext(
            "The proficiency scales were not loaded (what is listed above was):\n%(problems)s"
        )
    else:
        said = gettext(
            "The context variables were not loaded (what is listed above was):\n%(problems)s"
        )
    rest = ["python manage.py load_taxonomy", "--framework", code]
    if step == "scales":
        rest += ["--scales", str(files["scales"])]
    elif needs_scales and not files["scales"]:
        rest += ["--scales", "FILE"]
    if files["context_variables"]:
        rest += ["--context-variables", str(files["context_variables"])]
    go_on = gettext("Once that is mended, load what is left into %(code)s:\n%(command)s")
    return "\n".join(
        [said % {"problems": problems}, go_on % {"code": code, "command": " ".join(rest)}]
    )


class Command(TranslatedCommand):
    help = gettext_noop(
        "Load a competency framework (taxonomy.json layout) and optionally its context variables "
        "(context_variables.json layout) and proficiency scales (proficiency_scales.json layout). "
        "Items are matched by code and updated in place. Without a file, it loads the shipped "
        "starter set (fixtures/taxonomy.json, proficiency_scales.json, context_variables.json)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "taxonomy", type=Path, nargs="?", help=gettext_noop("taxonomy JSON file")
        )
        parser.add_argument(
            "--context-variables",
            type=Path,
            help=gettext_noop("context variables JSON file to load with it"),
        )
        parser.add_argument(
            "--scales",
            type=Path,
            help=gettext_noop("proficiency scales JSON file, loaded before the variables"),
        )
        parser.add_argument(
            "--framework",
            help=gettext_noop(
                "framework code for --context-variables when no taxonomy file is given"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        files: dict[str, Path | None] = {name: options[name] for name in PARTS}
        if not any(files.values()):
            if options["framework"]:
                raise CommandError(
                    gettext("Give a taxonomy file, --context-variables FILE or --scales FILE.")
                )
            files = starter_files()
            self.stdout.write(
                gettext("No file given: loading the shipped starter set (%(files)s).")
                % {"files": ", ".join(str(path) for path in files.values())}
            )
        try:  # every file is read before anything is loaded
            taxonomy = read_taxonomy(files["taxonomy"]) if files["taxonomy"] else None
            scales = read_scales(files["scales"]) if files["scales"] else None
            variables = (
                read_context_variables(files["context_variables"])
                if files["context_variables"]
                else None
            )
        except SeedFileError as exc:
            raise CommandError(nothing_loaded(exc)) from exc
        framework = None
        step = "taxonomy"
        try:
            if taxonomy is not None:
                framework, report = services.load_framework(taxonomy)
                self.stdout.write(
                    gettext("Taxonomy %(code)s: %(summary)s")
                    % {"code": framework.code, "summary": report.summary()}
                )
            if scales is not None:
                framework = framework or self._framework(options["framework"])
                step = "scales"
                scales_report = services.load_scales(framework, scales)
                self.stdout.write(
                    gettext("Proficiency scales of %(code)s: %(summary)s")
                    % {"code": framework.code, "summary": scales_report.summary()}
                )
            if variables is not None:
                framework = framework or self._framework(options["framework"])
                step = "context_variables"
                variables_report = services.load_context_variables(framework, variables)
                self.stdout.write(
                    gettext("Context variables of %(code)s: %(summary)s")
                    % {"code": framework.code, "summary": variables_report.summary()}
                )
        except SeedFileError as exc:
            first = next(name for name in PARTS if files[name])
            if step == first or framework is None:  # each part loads all or nothing
                raise CommandError(nothing_loaded(exc)) from exc
            needs_scales = variables is not None and any(spec.scale for spec in variables)
            raise CommandError(
                partly_loaded(exc, step, framework.code, files, needs_scales=needs_scales)
            ) from exc

    def _framework(self, code: str | None) -> Framework:
        try:
            return Framework.objects.chosen(code)
        except Framework.DoesNotExist:
            if code:
                raise CommandError(
                    gettext("No framework with code '%(code)s'.") % {"code": code}
                ) from None
        except Framework.MultipleObjectsReturned:
            pass
        raise CommandError(gettext("Say which framework the file belongs to: --framework CODE."))
