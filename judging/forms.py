from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from judging.models import JudgeConfig, JudgeRun, PromptVersion, TriageResolution
from judging.services import CONFIG_FIELDS, config_values

MIN_RUNS, MAX_RUNS = 2, 4


class CompareForm(forms.Form):
    """Two to four of a study's judge runs, in the order they were made."""

    run = forms.TypedMultipleChoiceField(
        coerce=int, widget=forms.CheckboxSelectMultiple, label=_("Runs to compare")
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
            raise forms.ValidationError(
                gettext("Choose %(low)s to %(high)s runs.") % {"low": MIN_RUNS, "high": MAX_RUNS}
            )
        return [self.runs[pk] for pk in chosen]


class ResolveForm(forms.Form):
    kind = forms.ChoiceField(
        choices=TriageResolution.Kind.choices, widget=forms.RadioSelect, label=_("Resolution")
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        help_text=_("Why. Required for a judge error: it is kept on the run's prompt version."),
        label=_("Note"),
    )


class RunForm(forms.Form):
    """What the "Run the judge" form asks: a saved judge configuration to reuse, or the
    values of one (the model, the prompt version and the parameters, saved under `name` when
    given), and a limit for this run.

    Choosing a saved configuration fills the fields with its values (htmx); submitted with the
    model left blank, the chosen configuration is used as it is; values changed from the chosen
    configuration's make another configuration."""

    config = forms.ModelChoiceField(
        queryset=JudgeConfig.objects.none(),
        required=False,
        label=_("Saved configuration"),
        empty_label=_("A new configuration (below)"),
    )
    name = forms.SlugField(
        max_length=60,
        required=False,
        label=_("Save as"),
        help_text=_(
            "A name to reuse this configuration by (on this form and with run_judge "
            "--config NAME). Left blank, it is named after the model and prompt."
        ),
    )
    model = forms.CharField(
        max_length=200,
        required=False,
        help_text=_(
            "An Inspect AI model: anthropic/claude-sonnet-4-6, openai/gpt-4.1, or "
            "openai-api/<service>/<model> for an OpenAI-compatible server (its address in "
            "<SERVICE>_BASE_URL). API keys come from the server's environment."
        ),
        label=_("Model"),
    )
    prompt = forms.ModelChoiceField(
        queryset=PromptVersion.objects.none(), required=False, label=_("Prompt")
    )
    model_family = forms.CharField(
        max_length=200,
        required=False,
        help_text=_(
            "The judge's vendor or family, as responses name theirs: self-preference "
            "compares the judge's leniency on its own family's responses with the others'."
        ),
        label=_("Model family"),
    )
    temperature = forms.FloatField(
        min_value=0.0, max_value=2.0, initial=0.0, required=False, label=_("Temperature")
    )
    epochs = forms.IntegerField(min_value=1, max_value=10, initial=1, label=_("Epochs"))
    max_connections = forms.IntegerField(
        min_value=1, max_value=200, initial=10, label=_("Max connections")
    )
    parse_retries = forms.IntegerField(
        min_value=0,
        max_value=10,
        initial=3,
        required=False,
        label=_("Retries of an unreadable answer"),
        help_text=_("Asked again with a corrective message, at the retry temperature."),
    )
    retry_temperature = forms.FloatField(
        min_value=0.0, max_value=2.0, initial=0.2, required=False, label=_("Retry temperature")
    )
    ask_probability = forms.BooleanField(
        required=False,
        label=_("Ask for the judge's probability"),
        help_text=_(
            "After the prompt, ask the judge for its probability that the response meets each "
            "binary criterion, on a line before its verdict; a study sampled for the judge's "
            "scores draws by it. The prompt itself is unchanged."
        ),
    )
    limit = forms.IntegerField(
        min_value=1,
        required=False,
        help_text=_("Judge only the first N units (a trial run)."),
        label=_("Limit"),
    )
    confirm_cost = forms.BooleanField(
        required=False,
        label=_("Run it even though its estimate is above the budget of a run"),
    )
    batch = forms.BooleanField(
        required=False,
        label=_("Send through the provider's batch API"),
        help_text=_(
            "About half the price; the answers can take hours (up to a day). OpenAI, "
            "Anthropic and Google models only: not an OpenAI-compatible server (openai-api/...)."
        ),
    )

    def __init__(self, *args: Any, refill_url: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        config = self.fields["config"]
        prompt = self.fields["prompt"]
        assert isinstance(config, forms.ModelChoiceField)
        assert isinstance(prompt, forms.ModelChoiceField)
        config.queryset = JudgeConfig.objects.select_related("prompt__template").order_by("name")
        if refill_url:
            config.widget.attrs |= {
                "hx-get": refill_url,
                "hx-trigger": "change",
                "hx-target": "#run-form",
                "hx-swap": "outerHTML",
            }
        prompt.queryset = PromptVersion.objects.select_related("template").order_by(
            "template__name", "-number"
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in ("temperature", "parse_retries", "retry_temperature"):
            if name in cleaned and cleaned[name] is None:  # left blank: the usual value
                cleaned[name] = self.fields[name].initial
        chosen = cleaned.get("config")
        if not cleaned.get("model"):
            if chosen is None and "model" not in self.errors:
                self.add_error("model", gettext("Name the model, or choose a saved configuration."))
            return cleaned  # the chosen configuration as it is (no JavaScript to fill it in)
        if chosen is not None and not self.errors:
            values = {field: cleaned.get(field) for field in CONFIG_FIELDS}
            if values != config_values(chosen):  # changed: another configuration
                cleaned["config"] = None
                if cleaned.get("name") == chosen.name:
                    cleaned["name"] = ""
        return cleaned

    @classmethod
    def initial_for(cls, config: JudgeConfig) -> dict[str, Any]:
        values = config_values(config)
        return values | {"config": config.pk, "name": config.name, "prompt": config.prompt_id}


class PromptForm(forms.Form):
    """A prompt's text: saving a changed text makes a new version."""

    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "cols": 100}), label=_("Text"))
    style = forms.ChoiceField(choices=PromptVersion.Style.choices, label=_("Style"))
    note = forms.CharField(
        required=False, max_length=500, help_text=_("What changed, and why."), label=_("Note")
    )


class NewPromptForm(PromptForm):
    name = forms.SlugField(
        max_length=60, help_text=_("Letters, digits and hyphens."), label=_("Name")
    )
    description = forms.CharField(required=False, max_length=500, label=_("Description"))
    field_order = ["name", "description", "style", "text"]
