from django.urls import path

from grading.views import adjudication, assignment, flags, resources, study, study_manage, times

app_name = "grading"
urlpatterns = [
    path("", assignment.index, name="index"),
    path("studies/<int:study_id>/next/", assignment.next_item, name="next"),
    path("assignments/<int:assignment_id>/", assignment.assignment_page, name="assignment"),
    path("assignments/<int:assignment_id>/start/", assignment.start, name="assignment_start"),
    path(
        "assignments/<int:assignment_id>/criteria/<int:criterion_version_id>/",
        assignment.save_grade,
        name="save_grade",
    ),
    path(
        "assignments/<int:assignment_id>/criteria/<int:criterion_version_id>/turns/<int:turn_id>/",
        assignment.save_turn_grade,
        name="save_turn_grade",
    ),
    path(
        "assignments/<int:assignment_id>/likert/<int:likert_item_id>/",
        assignment.save_likert,
        name="save_likert",
    ),
    path("assignments/<int:assignment_id>/submit/", assignment.submit, name="submit"),
    path("assignments/<int:assignment_id>/flag/", flags.flag, name="flag"),
    path("studies/<int:study_id>/flags/", flags.study_flags, name="study_flags"),
    path("flags/<int:flag_id>/resolve/", flags.flag_resolve, name="flag_resolve"),
    path("studies/<int:study_id>/time/", times.study_times, name="study_times"),
    path(
        "assignments/<int:assignment_id>/resources/<int:resource_id>/",
        resources.assignment_resource,
        name="assignment_resource",
    ),
    path("studies/", study.study_list, name="studies"),
    path("studies/new/", study.study_create, name="study_create"),
    path("studies/new/preview/", study.study_preview, name="study_preview"),
    path("studies/<int:study_id>/", study.study_detail, name="study"),
    path("studies/<int:study_id>/assign/", study.study_assign, name="study_assign"),
    path("studies/<int:study_id>/status/", study.study_status, name="study_status"),
    path("studies/<int:study_id>/close/", study.study_close, name="study_close"),
    path("studies/<int:study_id>/manage/", study_manage.study_manage, name="study_manage"),
    path("studies/<int:study_id>/pool/", study_manage.pool_add, name="study_pool_add"),
    path(
        "studies/<int:study_id>/pool/<int:user_id>/remove/",
        study_manage.pool_remove,
        name="study_pool_remove",
    ),
    path("studies/<int:study_id>/settings/", study_manage.study_settings, name="study_settings"),
    path("studies/<int:study_id>/questions/", study_manage.study_questions, name="study_questions"),
    path(
        "studies/<int:study_id>/split-reasons/",
        study_manage.study_split_reasons,
        name="study_split_reasons",
    ),
    path("studies/<int:study_id>/gold/", study_manage.gold_add, name="study_gold_add"),
    path(
        "studies/<int:study_id>/gold/<int:study_item_id>/remove/",
        study_manage.gold_remove,
        name="study_gold_remove",
    ),
    path(
        "studies/<int:study_id>/adjudication/",
        adjudication.adjudication_list,
        name="adjudication",
    ),
    path(
        "studies/<int:study_id>/adjudication/<int:study_item_id>/<int:criterion_version_id>/",
        adjudication.adjudicate,
        name="adjudicate",
    ),
]
