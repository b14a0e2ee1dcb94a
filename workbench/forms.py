from typing import Any

from django import forms

from judging.models import JudgeRun

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
