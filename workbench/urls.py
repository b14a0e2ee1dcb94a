"""The judge workbench: prompt templates, judge runs, run comparison and disagreement triage."""

from django.urls import path

from workbench.views import compare, prompts, runs, triage

app_name = "workbench"

urlpatterns = [
    path("studies/<int:study_id>/compare/", compare.compare, name="compare"),
    path("studies/<int:study_id>/runs/<int:run_id>/triage/", triage.queue, name="triage"),
    path(
        "studies/<int:study_id>/runs/<int:run_id>/triage/<int:study_item_id>/"
        "<int:criterion_version_id>/",
        triage.resolve,
        name="triage_resolve",
    ),
    path(
        "studies/<int:study_id>/runs/<int:run_id>/triage/<int:study_item_id>/"
        "<int:criterion_version_id>/reopen/",
        triage.reopen,
        name="triage_reopen",
    ),
    path("studies/<int:study_id>/judge/", runs.judge, name="judge"),
    path("studies/<int:study_id>/judge/runs/<int:run_id>/", runs.run, name="run"),
    path("studies/<int:study_id>/judge/runs/<int:run_id>/cancel/", runs.cancel, name="run_cancel"),
    path("studies/<int:study_id>/judge/runs/<int:run_id>/resume/", runs.resume, name="run_resume"),
    path("prompts/", prompts.prompt_list, name="prompts"),
    path("prompts/preview/", prompts.prompt_preview, name="prompt_preview"),
    path("prompts/<int:prompt_id>/", prompts.prompt, name="prompt"),
]
