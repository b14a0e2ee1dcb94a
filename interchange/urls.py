from django.urls import path

from interchange import views

app_name = "interchange"

urlpatterns = [
    path("", views.index, name="index"),
    path("jobs/<int:pk>/", views.job, name="job"),
    path("export/rubrics.xlsx", views.export_rubrics, name="export_rubrics"),
    path("export/benchmark.zip", views.export_benchmark, name="export_benchmark"),
]
