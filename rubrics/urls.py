from django.urls import path

from rubrics import criteria_views, resource_files, views

app_name = "rubrics"
urlpatterns = [
    path("tasks/", views.task_list, name="task_list"),
    path("tasks/new/", views.task_create, name="task_create"),
    path("tasks/<int:pk>/", views.task_detail, name="task_detail"),
    path("tasks/<int:pk>/edit/", views.task_edit, name="task_edit"),
    path("tasks/<int:pk>/context/", views.task_context, name="task_context"),
    path("tasks/<int:pk>/exclude/", views.task_exclude, name="task_exclude"),
    path("tasks/<int:pk>/include/", views.task_include, name="task_include"),
    path("tasks/<int:pk>/resources/new/", views.resource_create, name="resource_create"),
    path("resources/<int:pk>/edit/", views.resource_edit, name="resource_edit"),
    path("resources/<int:pk>/delete/", views.resource_delete, name="resource_delete"),
    path("resources/<int:pk>/file/", resource_files.resource_file, name="resource_file"),
    path("tasks/<int:pk>/criteria/", criteria_views.task_criteria, name="task_criteria"),
    path("tasks/<int:pk>/criteria/new/", criteria_views.criterion_create, name="criterion_create"),
    path("consensus/<int:pk>/", criteria_views.consensus, name="consensus"),
    path("consensus/<int:pk>/new/", criteria_views.consensus_create, name="consensus_create"),
    path("universal/<slug:framework_code>/", criteria_views.universal, name="universal"),
    path(
        "universal/<slug:framework_code>/new/",
        criteria_views.universal_create,
        name="universal_create",
    ),
    path("criteria/<int:pk>/", criteria_views.criterion_card, name="criterion_card"),
    path("criteria/<int:pk>/edit/", criteria_views.criterion_edit, name="criterion_edit"),
    path("criteria/<int:pk>/delete/", criteria_views.criterion_delete, name="criterion_delete"),
    path(
        "criteria/<int:pk>/move/<str:direction>/",
        criteria_views.criterion_move,
        name="criterion_move",
    ),
    path("tasks/<int:pk>/submit/", views.task_submit, name="task_submit"),
    path("tasks/<int:pk>/approve/", views.task_approve, name="task_approve"),
    path("tasks/<int:pk>/return/", views.task_return, name="task_return"),
    path("tasks/<int:pk>/diff/", views.task_diff, name="task_diff"),
    path("review/", views.review_queue, name="review_queue"),
]
