from django.urls import path

from interchange import views

app_name = "interchange"

urlpatterns = [
    path("", views.index, name="index"),
    path("jobs/<int:pk>/", views.job, name="job"),
    path("export/rubrics.xlsx", views.export_rubrics, name="export_rubrics"),
    path("export/benchmark.zip", views.export_benchmark, name="export_benchmark"),
    path("studies/<int:study_id>/offline/", views.offline_grading, name="offline"),
    path("studies/<int:study_id>/offline.xlsx", views.offline_workbook, name="offline_workbook"),
    path("studies/<int:study_id>/grades.csv", views.export_grades_csv, name="export_grades_csv"),
    path("studies/<int:study_id>/grades.xlsx", views.export_grades_xlsx, name="export_grades_xlsx"),
    path("studies/<int:study_id>/scores.csv", views.export_scores_csv, name="export_scores_csv"),
]
