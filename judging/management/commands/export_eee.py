from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_noop, ngettext

from core.formats import eee
from grading.commands import STUDY_HELP, study_argument
from judging import eee_export
from l2annot.commands import Command as TranslatedCommand


def _developer(value: str) -> tuple[str, str]:
    model, sep, developer = value.rpartition("=")
    if not sep or not model or not developer:
        raise ValueError(value)
    return model, developer


class Command(TranslatedCommand):
    help = gettext_noop(
        "Write each model's L2-Bench score in a study (overall, per competency, per layer, with "
        "the leaderboard's intervals) as 'Every Eval Ever' JSON records: "
        "DIR/<benchmark>/<developer>/<model>/<uuid>.json."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument(
            "dir", type=Path, help=gettext_noop("folder to write into (the datastore's data/)")
        )
        parser.add_argument("--source", choices=eee_export.SOURCES, default="experts")
        parser.add_argument(
            "--judge-run",
            type=int,
            metavar="ID",
            help=gettext_noop(
                "with --source judge: the judge run (needed when the study has several)"
            ),
        )
        parser.add_argument(
            "--benchmark", default="l2-bench", help=gettext_noop("the benchmark's folder name")
        )
        parser.add_argument(
            "--organization", default=eee.UNKNOWN, help=gettext_noop("who publishes the figures")
        )
        parser.add_argument("--organization-url")
        parser.add_argument(
            "--relationship",
            choices=eee.EVALUATOR_RELATIONSHIPS,
            default="third_party",
            help=gettext_noop("the evaluator's relationship to the models (default: third_party)"),
        )
        parser.add_argument(
            "--developer",
            action="append",
            default=[],
            type=_developer,
            metavar="MODEL=NAME",
            help=gettext_noop(
                "the developer of a model whose responses name no single family (repeatable)"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        if options["judge_run"] is not None and options["source"] != "judge":
            raise CommandError(gettext("--judge-run goes with --source judge."))
        settings = eee_export.Options(
            source=options["source"],
            benchmark=options["benchmark"],
            organization=options["organization"],
            organization_url=options["organization_url"],
            relationship=options["relationship"],
            developers=dict(options["developer"]),
        )
        try:
            run = (
                eee_export.judge_run_for(study, options["judge_run"])
                if settings.source == "judge"
                else None
            )
            paths, skipped = eee_export.export(study, options["dir"], settings, run=run)
        except eee_export.ExportProblem as problem:
            raise CommandError(
                gettext("%(problem)s\nNothing was written.") % {"problem": problem}
            ) from None
        for model in skipped:
            if settings.source == "judge":
                note = gettext("note: model '%(model)s' has no score by the judge")
            else:
                note = gettext("note: model '%(model)s' has no score by the experts")
            self.stderr.write(note % {"model": model})
        for path in paths:
            self.stdout.write(str(path))
        self.stdout.write(
            ngettext(
                "%(count)s EEE record written for study '%(study)s'.",
                "%(count)s EEE records written for study '%(study)s'.",
                len(paths),
            )
            % {"count": len(paths), "study": study.name}
        )
