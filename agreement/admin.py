from django.contrib import admin

from agreement.models import AnalysisSettings
from audit.admin import AuditedAdmin


@admin.register(AnalysisSettings)
class AnalysisSettingsAdmin(AuditedAdmin[AnalysisSettings]):
    list_display = [
        "study",
        "validation_threshold",
        "minimum_units",
        "epsilon",
        "resamples",
    ]
    search_fields = ["study__name"]
