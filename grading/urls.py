from django.urls import path

from grading import adjudication_views, resource_views, study_views, views

app_name = "grading"
urlpatterns = [
    path("", views.index, name="index"),
    path("studies/<int:study_id>/next/", views.next_item, name="next"),
    path("assignments/<int:assignment_id>/", views.assignment_page, name="assignment"),
    path(
        "assignments/<int:assignment_id>/criteria/<int:criterion_version_id>/",
        views.save_grade,
        name="save_grade",
    ),
    path(
        "assignments/<int:assignment_id>/likert/<int:likert_item_id>/",
        views.save_likert,
        name="save_likert",
    ),
    path("assignments/<int:assignment_id>/submit/", views.submit, name="submit"),
    path(
        "assignments/<int:assignment_id>/resources/<int:resource_id>/",
        resource_views.assignment_resource,
        name="assignment_resource",
    ),
    path("studies/", study_views.study_list, name="studies"),
    path("studies/new/", study_views.study_create, name="study_create"),
    path("studies/<int:study_id>/", study_views.study_detail, name="study"),
    path("studies/<int:study_id>/assign/", study_views.study_assign, name="study_assign"),
    path("studies/<int:study_id>/status/", study_views.study_status, name="study_status"),
    path(
        "studies/<int:study_id>/adjudication/",
        adjudication_views.adjudication_list,
        name="adjudication",
    ),
    path(
        "studies/<int:study_id>/adjudication/<int:study_item_id>/<int:criterion_version_id>/",
        adjudication_views.adjudicate,
        name="adjudicate",
    ),
]
