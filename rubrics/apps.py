from django.apps import AppConfig


class RubricsConfig(AppConfig):
    name = "rubrics"
    verbose_name = "Rubrics and tasks"
