from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WorkbenchConfig(AppConfig):
    name = "workbench"
    verbose_name = _("Judge workbench")
