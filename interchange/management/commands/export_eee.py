from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grading.commands import STUDY_HELP, study_argument
from interchange import eee_export
from interchange.formats import eee


def _developer(value: str) -> tuple[str, str]:
    model, sep, developer = value.rpartition("=")
    if not sep or not model or not developer:
        raise ValueError(value)
    return model, developer


class Command(BaseCommand):
    help = (
        "Write each model's L2-Bench score in a study (overall, per competency, per layer, with "
        "the leaderboard's intervals) as 'Every Eval Ever' JSON records: "
        "DIR/<benchmark>/<developer>/<model>/<uuid>.json."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument("dir", type=Path, help="folder to write into (the datastore's data/)")
        parser.add_argument("--source", choices=eee_export.SOURCES, default="experts")
        parser.add_argument(
            "--judge-run",
            type=int,
            metavar="ID",
            help="with --source judge: the judge run (needed when the study has several)",
        )
        parser.add_argument("--benchmark", default="l2-bench", help="the benchmark's folder name")
        parser.add_argument("--organization", default=eee.UNKNOWN, help="who publishes the figures")
        parser.add_argument("--organization-url")
        parser.add_argument(
            "--relationship",
            choices=eee.EVALUATOR_RELATIONSHIPS,
            default="third_party",
            help="the evaluator's relationship to the models (default: third_party)",
        )
        parser.add_argument(
            "--developer",
            action="append",
            default=[],
            type=_developer,
            metavar="MODEL=NAME",
            help="the developer of a model whose responses name no single family (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        if options["judge_run"] is not None and options["source"] != "judge":
            raise CommandError("--judge-run goes with --source judge.")
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
            raise CommandError(f"{problem}\nNothing was written.") from None
        for model in skipped:
            self.stderr.write(f"note: model '{model}' has no score by the {settings.source}")
        for path in paths:
            self.stdout.write(str(path))
        self.stdout.write(f"{len(paths)} EEE records written for study '{study.name}'.")
