from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AgreementConfig(AppConfig):
    name = "agreement"
    verbose_name = _("Agreement and judge calibration")
