from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class InterchangeConfig(AppConfig):
    name = "interchange"
    verbose_name = _("Import and export")

    def ready(self) -> None:
        # The histories of what an import writes read its comments in the reader's language,
        # those stored as English text before too.
        from interchange import history_text

        history_text.register()
