from django.urls import path

from taxonomy.views import outline
from taxonomy.views.outline import COMPETENCIES, CONTEXT_VARIABLES, SCALES

COMPETENCY = {"outline": COMPETENCIES}
VARIABLE = {"outline": CONTEXT_VARIABLES}
SCALE = {"outline": SCALES}

app_name = "taxonomy"
urlpatterns = [
    path("", outline.index, name="index"),
    # ----- competencies and their sub-competencies
    path("<slug:framework_code>/competencies/", outline.page, COMPETENCY, name="competencies"),
    path(
        "<slug:framework_code>/competencies/new/",
        outline.item_create,
        COMPETENCY,
        name="competency_create",
    ),
    path("competencies/<int:pk>/", outline.item_card, COMPETENCY, name="competency_card"),
    path("competencies/<int:pk>/edit/", outline.item_edit, COMPETENCY, name="competency_edit"),
    path(
        "competencies/<int:pk>/delete/", outline.item_delete, COMPETENCY, name="competency_delete"
    ),
    path(
        "competencies/<int:pk>/move/<str:direction>/",
        outline.item_move,
        COMPETENCY,
        name="competency_move",
    ),
    path(
        "competencies/<int:pk>/subcompetency/new/",
        outline.sub_create,
        COMPETENCY,
        name="subcompetency_create",
    ),
    path(
        "competencies/subcompetency/<int:pk>/edit/",
        outline.sub_edit,
        COMPETENCY,
        name="subcompetency_edit",
    ),
    path(
        "competencies/subcompetency/<int:pk>/delete/",
        outline.sub_delete,
        COMPETENCY,
        name="subcompetency_delete",
    ),
    path(
        "competencies/subcompetency/<int:pk>/move/<str:direction>/",
        outline.sub_move,
        COMPETENCY,
        name="subcompetency_move",
    ),
    # ----- context variables and their listed values
    path(
        "<slug:framework_code>/context-variables/",
        outline.page,
        VARIABLE,
        name="context-variables",
    ),
    path(
        "<slug:framework_code>/context-variables/new/",
        outline.item_create,
        VARIABLE,
        name="contextvariable_create",
    ),
    path("context-variables/<int:pk>/", outline.item_card, VARIABLE, name="contextvariable_card"),
    path(
        "context-variables/<int:pk>/edit/",
        outline.item_edit,
        VARIABLE,
        name="contextvariable_edit",
    ),
    path(
        "context-variables/<int:pk>/delete/",
        outline.item_delete,
        VARIABLE,
        name="contextvariable_delete",
    ),
    path(
        "context-variables/<int:pk>/move/<str:direction>/",
        outline.item_move,
        VARIABLE,
        name="contextvariable_move",
    ),
    path(
        "context-variables/<int:pk>/contextvalue/new/",
        outline.sub_create,
        VARIABLE,
        name="contextvalue_create",
    ),
    path(
        "context-variables/contextvalue/<int:pk>/edit/",
        outline.sub_edit,
        VARIABLE,
        name="contextvalue_edit",
    ),
    path(
        "context-variables/contextvalue/<int:pk>/delete/",
        outline.sub_delete,
        VARIABLE,
        name="contextvalue_delete",
    ),
    path(
        "context-variables/contextvalue/<int:pk>/move/<str:direction>/",
        outline.sub_move,
        VARIABLE,
        name="contextvalue_move",
    ),
    # ----- proficiency scales, their levels and the mapping between them
    path("<slug:framework_code>/scales/", outline.page, SCALE, name="scales"),
    path("<slug:framework_code>/scales/new/", outline.item_create, SCALE, name="scale_create"),
    path("scales/<int:pk>/", outline.item_card, SCALE, name="scale_card"),
    path("scales/<int:pk>/edit/", outline.item_edit, SCALE, name="scale_edit"),
    path("scales/<int:pk>/delete/", outline.item_delete, SCALE, name="scale_delete"),
    path("scales/<int:pk>/move/<str:direction>/", outline.item_move, SCALE, name="scale_move"),
    path("scales/<int:pk>/level/new/", outline.sub_create, SCALE, name="level_create"),
    path("scales/level/<int:pk>/edit/", outline.sub_edit, SCALE, name="level_edit"),
    path("scales/level/<int:pk>/delete/", outline.sub_delete, SCALE, name="level_delete"),
    path(
        "scales/level/<int:pk>/move/<str:direction>/",
        outline.sub_move,
        SCALE,
        name="level_move",
    ),
]
