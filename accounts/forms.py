from django import forms

from accounts.models import ApiToken


class ApiTokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["name"]
