from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = _("Grading studies")

    def ready(self) -> None:
        from grading import history_text

        history_text.register()
