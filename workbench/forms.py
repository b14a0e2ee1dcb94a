from typing import Any

from django import forms

from judging.models import JudgeRun, PromptVersion, TriageResolution

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


class RunForm(forms.Form):
    """What the "Run the judge" form asks: the judge, the prompt version and the parameters."""

    model = forms.CharField(
        max_length=200,
        help_text="An Inspect AI model: anthropic/claude-sonnet-4-6, openai/gpt-4.1, or "
        "openai-api/<service>/<model> for an OpenAI-compatible server (its address in "
        "<SERVICE>_BASE_URL). API keys come from the server's environment.",
    )
    prompt = forms.ModelChoiceField(queryset=PromptVersion.objects.none(), empty_label=None)
    model_family = forms.CharField(
        max_length=200, required=False, help_text="The judge's vendor, for self-preference."
    )
    epochs = forms.IntegerField(min_value=1, max_value=10, initial=1)
    max_connections = forms.IntegerField(min_value=1, max_value=200, initial=10)
    limit = forms.IntegerField(
        min_value=1, required=False, help_text="Judge only the first N units (a trial run)."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["prompt"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = PromptVersion.objects.select_related("template").order_by(
            "template__name", "-number"
        )


class PromptForm(forms.Form):
    """A prompt's text: saving a changed text makes a new version."""

    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "cols": 100}))
    style = forms.ChoiceField(choices=PromptVersion.Style.choices)
    note = forms.CharField(required=False, max_length=500, help_text="What changed, and why.")


class NewPromptForm(PromptForm):
    name = forms.SlugField(max_length=60, help_text="Letters, digits and hyphens.")
    description = forms.CharField(required=False, max_length=500)
    field_order = ["name", "description", "style", "text"]
