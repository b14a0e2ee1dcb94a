from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts.models import ApiToken, User


class ApiTokenForm(forms.ModelForm[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["name"]


class LanguageForm(forms.ModelForm[User]):
    class Meta:
        model = User
        fields = ["language"]
        labels = {"language": _("Interface language")}
        help_texts = {"language": _("Without a choice, the language your browser asks for.")}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["language"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", _("Browser's language")), *settings.LANGUAGES]


class CodeForm(forms.Form):
    """A code from the authenticator app (six digits) or, where accepted, a recovery code."""

    code = forms.CharField(
        label=_("Code"),
        max_length=20,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "autofocus": True}),
    )
