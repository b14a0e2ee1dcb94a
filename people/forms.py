from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.roles import ROLE_LABELS, Role
from people.services import language_codes
from taxonomy.models import SubCompetency

ROLE_CHOICES = [(role.value, ROLE_LABELS[role]) for role in Role]


class InviteForm(forms.Form):
    username = forms.CharField(max_length=150, label=_("User name"))
    email = forms.EmailField(label=_("Email"))
    display_name = forms.CharField(max_length=150, required=False, label=_("Name shown"))
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial=Role.ANNOTATOR.value, label=_("Role"))

    def clean_username(self) -> str:
        username = cast(str, self.cleaned_data["username"]).strip()
        # The same rule as Django's own user form.
        User.username_validator(username)
        return username


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=ROLE_CHOICES, label=_("Role"))


class SubCompetencyChoices(forms.ModelMultipleChoiceField[SubCompetency]):
    def label_from_instance(self, obj: SubCompetency) -> str:
        return f"{obj.code} {obj.name}"


class ExpertiseForm(forms.Form):
    sub_competencies = SubCompetencyChoices(
        SubCompetency.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=_("Sub-competencies"),
        help_text=_("None ticked: any sub-competency."),
    )
    languages = forms.CharField(
        required=False,
        label=_("Target languages"),
        help_text=_(
            "ISO 639-1 codes or English names (es, Spanish), separated by commas; "
            "empty: any language."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(SubCompetencyChoices, self.fields["sub_competencies"])
        field.queryset = SubCompetency.objects.select_related("competency__framework").order_by(
            "competency__framework__code", "competency__order", "order", "code"
        )

    def clean_languages(self) -> list[str]:
        raw = cast(str, self.cleaned_data["languages"])
        return list(dict.fromkeys(language_codes(raw.split(","))))
