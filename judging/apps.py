from django.apps import AppConfig, apps
from django.db import connections
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _

from judging.shipped import ship


def _ship_prompts_after_migrate(
    sender: AppConfig, using: str = "default", **kwargs: object
) -> None:
    template = apps.get_model("judging", "PromptTemplate")
    if template._meta.db_table in connections[using].introspection.table_names():
        ship(template, apps.get_model("judging", "PromptVersion"))


class JudgingConfig(AppConfig):
    name = "judging"
    verbose_name = _("LLM judge")

    def ready(self) -> None:
        # The migration ships the prompts once; a flushed database (`manage.py flush`, a
        # transactional test) gets them back after it, as the roles are (accounts.apps).
        post_migrate.connect(_ship_prompts_after_migrate, sender=self)
        # Grading plans how many expert grades a study needs, and draws a sampled study's
        # responses, from the judge's verdicts, which it reads through this app (grading sits
        # below it and does not import it).
        from grading.services.planning import read_planning_verdicts_with
        from grading.services.sampling import read_run_verdicts_with
        from judging.planning import planning_verdicts, run_verdicts

        read_planning_verdicts_with(planning_verdicts)
        read_run_verdicts_with(run_verdicts)
        # The apps below this one that show or keep the judge's data are given it here: the
        # import page's jobs import a file of judge verdicts with this app's importer, a study's
        # backup holds the judge's rows, a study's agreement report its judge runs and their
        # calibrations, 1-5 scales and leaderboards, and a study's dataset the judges' answers.
        from agreement.judge_parts import JudgeSource, take_judge_parts_from
        from interchange.backup import back_up_with
        from interchange.jobs import import_verdicts_with
        from judging import backup, calibration, data
        from judging.verdict_import import import_verdicts

        import_verdicts_with(import_verdicts)
        back_up_with(backup.study_rows, backup.made_by_migrate)
        take_judge_parts_from(
            JudgeSource(
                data.calibration_runs,
                calibration.report_parts,
                calibration.report_part_keys,
                data.study_judge_answers,
            )
        )
        # A run's and a triage resolution's histories read their comments in the reader's
        # language, those stored as English text before too.
        from audit import history
        from judging import resolution, runs
        from judging.models import JudgeRun, TriageResolution
        from rubrics.models import Criterion

        history.register(JudgeRun, messages=runs.HISTORY_MESSAGES)
        history.register(TriageResolution, messages=[resolution.REOPENED])
        history.register(Criterion, messages=[resolution.FOUND_AMBIGUOUS, resolution.DISAGREED])
