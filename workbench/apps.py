from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WorkbenchConfig(AppConfig):
    name = "workbench"
    verbose_name = _("Judge workbench")

    def ready(self) -> None:
        # The apps below this one that show or keep the judge's data are given it here: the
        # import page's jobs import a file of judge verdicts with this app's importer, a study's
        # backup holds the judge's rows, a study's agreement report its judge runs and their
        # calibrations, 1-5 scales and leaderboards, and a study's dataset the judges' answers.
        from agreement.judge_parts import JudgeSource, take_judge_parts_from
        from interchange.backup import back_up_with
        from interchange.jobs import import_verdicts_with
        from workbench import backup, calibration, data
        from workbench.verdict_import import import_verdicts

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
