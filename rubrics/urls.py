from django.urls import path  # noqa: F401

app_name = "rubrics"
urlpatterns: list = []
