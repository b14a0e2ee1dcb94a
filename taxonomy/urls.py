from django.urls import path

from taxonomy import views

app_name = "taxonomy"
urlpatterns = [
    path("", views.index, name="index"),
    *views.competency_editor.urls(),
    *views.context_variable_editor.urls(),
]
