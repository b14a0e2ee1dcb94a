"""The judge workbench: prompt templates, judge runs, run comparison and disagreement triage."""

from django.urls import path

from workbench.views import compare, triage

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
]
