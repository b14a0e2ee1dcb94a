from django import forms

from agreement.models import AnalysisSettings


class AnalysisSettingsForm(forms.ModelForm[AnalysisSettings]):
    class Meta:
        model = AnalysisSettings
        fields = [
            "validation_threshold",
            "minimum_units",
            "epsilon",
            "resamples",
            "seed",
            "show_annotator_names",
        ]
