from django.urls import path

from agreement.views import dataset, labels, pool, reports

app_name = "agreement"
urlpatterns = [
    path("", reports.index, name="index"),
    path("studies/<int:study_id>/", reports.study_agreement, name="study"),
    path("studies/<int:study_id>/drift/", pool.drift, name="drift"),
    path("pool/", pool.pool, name="pool"),
    path("pool/<int:user_id>/", pool.annotator, name="annotator"),
    path("studies/<int:study_id>/settings/", reports.analysis_settings, name="settings"),
    path("studies/<int:study_id>/report/", reports.study_report_prepare, name="study_report"),
    path(
        "studies/<int:study_id>/report.json",
        reports.study_report_download,
        {"fmt": "json"},
        name="study_report_json",
    ),
    path(
        "studies/<int:study_id>/report.xlsx",
        reports.study_report_download,
        {"fmt": "xlsx"},
        name="study_report_xlsx",
    ),
    path("studies/<int:study_id>/labels.csv", labels.download, {"fmt": "csv"}, name="labels_csv"),
    path(
        "studies/<int:study_id>/labels.xlsx", labels.download, {"fmt": "xlsx"}, name="labels_xlsx"
    ),
    path(
        "studies/<int:study_id>/labels.json", labels.download, {"fmt": "json"}, name="labels_json"
    ),
    path("studies/<int:study_id>/dataset.zip", dataset.download, name="dataset"),
]
