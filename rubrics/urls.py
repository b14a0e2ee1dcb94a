from django.urls import path

from rubrics import views

app_name = "rubrics"
urlpatterns = [
    path("tasks/", views.task_list, name="task_list"),
    path("tasks/<int:pk>/", views.task_detail, name="task_detail"),
]
