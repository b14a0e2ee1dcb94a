"""The judge: prompt templates, judge runs, run comparison and disagreement triage under
/workbench/, and the judge's calibration against a study's experts and the study's model
leaderboard under /agreement/, beside the study's agreement report (one include, at the root,
so that every judge page is named in this one namespace)."""

from django.urls import path

from judging.views import calibration, compare, prompts, runs, triage

app_name = "judging"

urlpatterns = [
    path("workbench/studies/<int:study_id>/compare/", compare.compare, name="compare"),
    path("workbench/studies/<int:study_id>/runs/<int:run_id>/triage/", triage.queue, name="triage"),
    path(
        "workbench/studies/<int:study_id>/runs/<int:run_id>/triage/<int:study_item_id>/"
        "<int:criterion_version_id>/",
        triage.resolve,
        name="triage_resolve",
    ),
    path(
        "workbench/studies/<int:study_id>/runs/<int:run_id>/triage/<int:study_item_id>/"
        "<int:criterion_version_id>/reopen/",
        triage.reopen,
        name="triage_reopen",
    ),
    path("workbench/studies/<int:study_id>/judge/", runs.judge, name="judge"),
    path("workbench/studies/<int:study_id>/judge/estimate/", runs.estimate, name="run_estimate"),
    path("workbench/studies/<int:study_id>/judge/runs/<int:run_id>/", runs.run, name="run"),
    path(
        "workbench/studies/<int:study_id>/judge/runs/<int:run_id>/cancel/",
        runs.cancel,
        name="run_cancel",
    ),
    path(
        "workbench/studies/<int:study_id>/judge/runs/<int:run_id>/resume/",
        runs.resume,
        name="run_resume",
    ),
    path("workbench/prompts/", prompts.prompt_list, name="prompts"),
    path("workbench/prompts/preview/", prompts.prompt_preview, name="prompt_preview"),
    path("workbench/prompts/download/", prompts.prompts_download, name="prompts_download"),
    path("workbench/prompts/upload/", prompts.prompts_upload, name="prompts_upload"),
    path(
        "workbench/prompts/versions/<int:version_id>/download/",
        prompts.prompt_download,
        name="prompt_download",
    ),
    path("workbench/prompts/<int:prompt_id>/", prompts.prompt, name="prompt"),
    path(
        "agreement/studies/<int:study_id>/leaderboard/",
        calibration.leaderboard,
        name="leaderboard",
    ),
    path(
        "agreement/studies/<int:study_id>/judges/<int:run_id>/",
        calibration.judge_calibration,
        name="calibration",
    ),
    path(
        "agreement/studies/<int:study_id>/judges/<int:run_id>/family/",
        calibration.judge_family,
        name="calibration_family",
    ),
    path(
        "agreement/studies/<int:study_id>/judges/<int:run_id>/calibration.json",
        calibration.judge_calibration_download,
        {"fmt": "json"},
        name="calibration_json",
    ),
    path(
        "agreement/studies/<int:study_id>/judges/<int:run_id>/calibration.xlsx",
        calibration.judge_calibration_download,
        {"fmt": "xlsx"},
        name="calibration_xlsx",
    ),
]
