from django import forms
from django.utils.translation import gettext_lazy as _

from webhooks.models import Event


class HookForm(forms.Form):
    url = forms.URLField(
        max_length=2000,
        assume_scheme="https",
        label=_("URL"),
        help_text=_("Each delivery is POSTed here as JSON, signed with the hook's secret."),
    )
    events = forms.MultipleChoiceField(
        choices=Event.choices, widget=forms.CheckboxSelectMultiple, label=_("Events")
    )
    description = forms.CharField(max_length=200, required=False, label=_("Description"))


class ActiveForm(forms.Form):
    active = forms.BooleanField(required=False, label=_("Active"))
    revision = forms.IntegerField(widget=forms.HiddenInput, label=_("Revision"))
