from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)


class RevisionForm(forms.ModelForm[Any]):  # any taxonomy model (each has a revision)
    """Carries the revision the editor loaded, so a stale save is detected."""

    revision = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        if self.instance.pk and not self.is_bound:
            self.initial["revision"] = self.instance.revision

    def validate_constraints(self) -> None:
        # The parent (framework, competency, variable) is set on the instance, not on the form;
        # Django would skip every constraint that names it, so validate them all here.
        exclude = {name for name in self.errors if name != NON_FIELD_ERRORS}
        try:
            self.instance.validate_constraints(exclude=exclude)
        except ValidationError as exc:
            self._update_errors(exc)  # type: ignore[attr-defined]  # private to BaseForm


class CompetencyForm(RevisionForm):
    class Meta:
        model = Competency
        fields = ["code", "name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}


class SubCompetencyForm(RevisionForm):
    class Meta:
        model = SubCompetency
        fields = ["code", "name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}


class ContextVariableForm(RevisionForm):
    class Meta:
        model = ContextVariable
        fields = [
            *("key", "label", "kind", "group", "minimum", "maximum", "whole_numbers"),
            *("scale", "description"),
        ]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        scales = ProficiencyScale.objects.all()
        if self.instance.framework_id is not None:
            scales = scales.filter(framework_id=self.instance.framework_id)
        self.fields["scale"].queryset = scales  # type: ignore[attr-defined]


class ContextValueForm(RevisionForm):
    class Meta:
        model = ContextValue
        fields = ["code", "label", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 1})}


class ProficiencyScaleForm(RevisionForm):
    class Meta:
        model = ProficiencyScale
        fields = ["code", "name", "source", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}


class ProficiencyLevelForm(RevisionForm):
    class Meta:
        model = ProficiencyLevel
        fields = ["code", "label", "description", "corresponds_to", "corresponds_to_upper"]
        widgets = {"description": forms.Textarea(attrs={"rows": 1})}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # The levels of the framework's other scales (ProficiencyLevel.clean says why not others).
        others = ProficiencyLevel.objects.select_related("scale").order_by(
            "scale__order", "scale__code", "order"
        )
        if self.instance.scale_id is not None:
            scale = self.instance.scale
            others = others.filter(scale__framework_id=scale.framework_id).exclude(scale=scale)
        for name in ("corresponds_to", "corresponds_to_upper"):
            self.fields[name].queryset = others  # type: ignore[attr-defined]
