"""The judge workbench: prompt templates, judge runs, run comparison and disagreement triage."""

from django.urls import URLPattern

app_name = "workbench"

urlpatterns: list[URLPattern] = []
