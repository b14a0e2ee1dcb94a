from typing import Any

from django import forms

from judging.models import JudgeRun, TriageResolution

MIN_RUNS, MAX_RUNS = 2, 4


class CompareForm(forms.Form):
    """Two to four of a study's judge runs, in the order they were made."""

    run = forms.TypedMultipleChoiceField(
        coerce=int, widget=forms.CheckboxSelectMultiple, label="Runs to compare"
    )

    def __init__(self, *args: Any, runs: list[JudgeRun], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.runs = {run.pk: run for run in runs}
        field = self.fields["run"]
        assert isinstance(field, forms.TypedMultipleChoiceField)
        field.choices = [(run.pk, str(run)) for run in runs]

    def clean_run(self) -> list[JudgeRun]:
        chosen = sorted(set(self.cleaned_data["run"]))
        if not MIN_RUNS <= len(chosen) <= MAX_RUNS:
            raise forms.ValidationError(f"Choose {MIN_RUNS} to {MAX_RUNS} runs.")
        return [self.runs[pk] for pk in chosen]


class ResolveForm(forms.Form):
    kind = forms.ChoiceField(
        choices=TriageResolution.Kind.choices, widget=forms.RadioSelect, label="Resolution"
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        help_text="Why. Required for a judge error: it is kept on the run's prompt version.",
    )
