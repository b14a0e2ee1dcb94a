from django.urls import path

from rubrics.views import criteria, editor, resources, tasks

app_name = "rubrics"
urlpatterns = [
    path("tasks/", tasks.task_list, name="task_list"),
    path("tasks/new/", editor.task_create, name="task_create"),
    path("tasks/<int:pk>/", tasks.task_detail, name="task_detail"),
    path("tasks/<int:pk>/edit/", editor.task_edit, name="task_edit"),
    path("tasks/<int:pk>/context/", editor.task_context, name="task_context"),
    path("tasks/<int:pk>/exclude/", editor.task_exclude, name="task_exclude"),
    path("tasks/<int:pk>/include/", editor.task_include, name="task_include"),
    path("tasks/<int:pk>/resources/new/", editor.resource_create, name="resource_create"),
    path("resources/<int:pk>/edit/", editor.resource_edit, name="resource_edit"),
    path("resources/<int:pk>/delete/", editor.resource_delete, name="resource_delete"),
    path("resources/<int:pk>/file/", resources.resource_file, name="resource_file"),
    path("tasks/<int:pk>/criteria/", criteria.task_criteria, name="task_criteria"),
    path("tasks/<int:pk>/criteria/new/", criteria.criterion_create, name="criterion_create"),
    path("consensus/<int:pk>/", criteria.consensus, name="consensus"),
    path("consensus/<int:pk>/new/", criteria.consensus_create, name="consensus_create"),
    path("universal/<slug:framework_code>/", criteria.universal, name="universal"),
    path(
        "universal/<slug:framework_code>/new/",
        criteria.universal_create,
        name="universal_create",
    ),
    path("criteria/<int:pk>/", criteria.criterion_card, name="criterion_card"),
    path("criteria/<int:pk>/edit/", criteria.criterion_edit, name="criterion_edit"),
    path("criteria/<int:pk>/delete/", criteria.criterion_delete, name="criterion_delete"),
    path(
        "criteria/<int:pk>/move/<str:direction>/",
        criteria.criterion_move,
        name="criterion_move",
    ),
    path("tasks/<int:pk>/submit/", tasks.task_submit, name="task_submit"),
    path("tasks/<int:pk>/approve/", tasks.task_approve, name="task_approve"),
    path("tasks/<int:pk>/return/", tasks.task_return, name="task_return"),
    path("tasks/<int:pk>/diff/", tasks.task_diff, name="task_diff"),
    path("review/", tasks.review_queue, name="review_queue"),
]
