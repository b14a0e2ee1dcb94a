"""The judge workbench: prompt templates, judge runs, run comparison and disagreement triage."""

from django.urls import path

from workbench.views import compare

app_name = "workbench"

urlpatterns = [
    path("studies/<int:study_id>/compare/", compare.compare, name="compare"),
]
