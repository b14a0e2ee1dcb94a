from django.urls import path

from agreement import views

app_name = "agreement"
urlpatterns = [
    path("", views.index, name="index"),
    path("studies/<int:study_id>/", views.study_agreement, name="study"),
    path("studies/<int:study_id>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("studies/<int:study_id>/settings/", views.analysis_settings, name="settings"),
    path(
        "studies/<int:study_id>/judges/<int:run_id>/",
        views.judge_calibration,
        name="judge",
    ),
    path(
        "studies/<int:study_id>/report.json",
        views.study_report_download,
        {"fmt": "json"},
        name="study_report_json",
    ),
    path(
        "studies/<int:study_id>/report.xlsx",
        views.study_report_download,
        {"fmt": "xlsx"},
        name="study_report_xlsx",
    ),
]
