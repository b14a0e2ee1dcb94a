from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RubricsConfig(AppConfig):
    name = "rubrics"
    verbose_name = _("Rubrics and tasks")

    def ready(self) -> None:
        from rubrics import history_text

        history_text.register()
