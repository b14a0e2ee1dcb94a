from django.urls import path

from interchange.views import exports, imports, offline

app_name = "interchange"

urlpatterns = [
    path("", imports.index, name="index"),
    path("jobs/<int:pk>/", imports.job, name="job"),
    path("jobs/<int:pk>/again/", imports.again, name="job_again"),
    path("export/rubrics.xlsx", exports.export_rubrics, name="export_rubrics"),
    path("export/benchmark.zip", exports.export_benchmark, name="export_benchmark"),
    path("studies/<int:study_id>/offline/", offline.offline_grading, name="offline"),
    path("studies/<int:study_id>/offline.xlsx", offline.offline_workbook, name="offline_workbook"),
    path("studies/<int:study_id>/grades.csv", exports.export_grades_csv, name="export_grades_csv"),
    path(
        "studies/<int:study_id>/grades.xlsx", exports.export_grades_xlsx, name="export_grades_xlsx"
    ),
    path("studies/<int:study_id>/scores.csv", exports.export_scores_csv, name="export_scores_csv"),
]
