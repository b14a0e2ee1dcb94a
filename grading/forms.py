from typing import Any, cast

from django import forms
from django.db.models import Exists, OuterRef

from accounts.models import User
from accounts.roles import Role
from grading.models import Study, Verdict
from rubrics.models import RubricVersion, Task
from rubrics.scoring import verdict_labels


class StudyForm(forms.ModelForm):
    """A new study over every response of the chosen tasks (tasks with a published rubric)."""

    tasks = forms.ModelMultipleChoiceField(
        queryset=Task.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Every response of these tasks, graded on its task's latest published rubric.",
    )
    annotators = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    assign_now = forms.BooleanField(required=False, initial=True, label="Assign graders now")

    class Meta:
        model = Study
        fields = [
            "name",
            "framework",
            "description",
            "overlap",
            "match_expertise",
            "deadline",
            "require_rationale_on_fail",
            "show_grader_names_to_adjudicator",
        ]
        widgets = {"deadline": forms.DateTimeInput(attrs={"type": "datetime-local"})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        published = RubricVersion.objects.filter(task=OuterRef("pk"))
        tasks = cast(forms.ModelMultipleChoiceField, self.fields["tasks"])
        annotators = cast(forms.ModelMultipleChoiceField, self.fields["annotators"])
        tasks.queryset = (
            Task.objects.filter(Exists(published)).select_related("framework").order_by("key")
        )
        annotators.queryset = User.objects.filter(
            groups__name=Role.ANNOTATOR.value, is_active=True
        ).order_by("username")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        framework, tasks = data.get("framework"), data.get("tasks") or []
        others = [t.key for t in tasks if framework and t.framework_id != framework.pk]
        if others:
            self.add_error("tasks", f"Not in {framework}: {', '.join(others)}.")
        return data


class GoldVerdictForm(forms.Form):
    """An adjudicator's verdict on one pair; `revision` is the gold revision they saw (0: none)."""

    verdict = forms.ChoiceField(choices=Verdict.choices, widget=forms.RadioSelect)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    revision = forms.IntegerField(min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args: Any, penalty: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The stored values stay pass / fail / na; a penalty's read Present / Absent / N/A.
        verdict = self.fields["verdict"]
        assert isinstance(verdict, forms.ChoiceField)
        verdict.choices = list(verdict_labels(penalty=penalty).items())
