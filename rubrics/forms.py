"""Forms of the authoring screens. They parse what a person typed; the rules live in services."""

from decimal import Decimal
from typing import Any, cast

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.http import QueryDict
from django.template.defaultfilters import filesizeformat
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.languages import language_name
from rubrics.models import CriterionVersion, Task, TaskContextValue, TaskResource
from rubrics.models.criteria import GUIDANCE_MAX, WEIGHT_LIMIT, WORDING_MAX
from taxonomy.models import Competency, ContextVariable, Framework, SubCompetency, shown_value


def _choice_field(form: forms.BaseForm, name: str) -> forms.ModelChoiceField[Any]:
    return cast(forms.ModelChoiceField[Any], form.fields[name])


# Uploaded resources are handed to models with the task: keep them small. Override in settings.
RESOURCE_MAX_BYTES: int = getattr(settings, "RUBRICS_RESOURCE_MAX_BYTES", 5 * 1024 * 1024)
# Teaching material: documents, sheets, slides, pictures, sound and video. Files are downloaded as
# attachments anyway; the list keeps pages, scripts and programs (.html, .svg, .js, .exe) out.
RESOURCE_EXTENSIONS = (
    *(".pdf", ".txt", ".md", ".csv", ".docx", ".odt", ".pptx", ".odp", ".xlsx", ".ods"),
    *(".png", ".jpg", ".jpeg", ".gif", ".webp", ".mp3", ".wav", ".ogg", ".m4a", ".mp4"),
)


def add_errors(form: forms.BaseForm, exc: ValidationError) -> None:
    """Put a model or service ValidationError on the form: on a field when the form has it,
    otherwise at the top of the form."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for name, errors in exc.error_dict.items():
        form.add_error(name if name in form.fields else None, errors)


class RevisionField(forms.IntegerField):
    widget = forms.HiddenInput

    def __init__(self) -> None:
        super().__init__(required=False)


def sub_competency_choices(framework: Framework | None = None) -> QuerySet[SubCompetency]:
    subs = SubCompetency.objects.select_related("competency__framework")
    if framework is not None:
        subs = subs.filter(competency__framework=framework)
    return subs.order_by("competency__framework__name", "competency__order", "order", "code")


class TaskForm(forms.ModelForm[Task]):
    revision = RevisionField()

    class Meta:
        model = Task
        fields = list(Task.CONTENT_FIELDS)
        widgets = {
            "instruction": forms.Textarea(attrs={"rows": 6}),
            "system_prompt": forms.Textarea(attrs={"rows": 3}),
            "reference_answer": forms.Textarea(attrs={"rows": 6}),
        }
        labels = {"sub_competency": _("Sub-competency")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Moving a task to another framework would strand its criteria and context values.
        framework = self.instance.framework if self.instance.pk else None
        _choice_field(self, "sub_competency").queryset = sub_competency_choices(framework)
        if self.instance.pk and not self.is_bound:
            self.initial["revision"] = self.instance.revision

    def validate_unique(self) -> None:
        # The key is unique per framework, which the form does not hold: the service checks it.
        pass

    def changes(self) -> dict[str, Any]:
        return {name: self.cleaned_data[name] for name in Task.CONTENT_FIELDS}


class ContextValueField(forms.Field):
    """The value of one context variable, checked by ContextVariable.parse_value (so a bad value
    gets the message it gets from the API and an import). Cleans to the text typed; the service
    parses it again when it saves."""

    def __init__(self, variable: ContextVariable, **kwargs: Any) -> None:
        self.variable = variable
        if variable.has_listed_values:
            choices = [("", "—")] + [(v.code, v.label) for v in variable.values.all()]
            kwargs["widget"] = forms.Select(choices=choices)
        elif variable.kind == ContextVariable.Kind.NUMBER:
            bounds = {"min": variable.minimum, "max": variable.maximum}
            attrs = {name: str(limit) for name, limit in bounds.items() if limit is not None}
            step = "1" if variable.whole_numbers else "0.001"  # parse_value's 3 decimals
            kwargs["widget"] = forms.NumberInput(attrs={**attrs, "step": step})
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> str:
        return "" if value in self.empty_values else str(value).strip()

    def validate(self, value: str) -> None:
        super().validate(value)
        if value:
            self.variable.parse_value(value)

    def has_changed(self, initial: Any, data: Any) -> bool:
        return self._comparable(initial) != self._comparable(data)

    def _comparable(self, value: Any) -> str:
        text = self.to_python(value)
        if self.variable.kind == ContextVariable.Kind.NUMBER and text:
            try:
                return shown_value(Decimal(text))
            except ArithmeticError:
                return text
        return text.lower() if self.variable.has_listed_values else text


class ContextValuesForm(forms.Form):
    """One field per context variable of the framework, of the kind the variable takes:
    a list in its order for listed kinds, a number within its range, or a text.

    Each field also carries, hidden, the value the editor saw (Django's show_hidden_initial):
    only the variables the editor changed are saved, and a change to a variable that someone
    else changed in the meantime is a conflict, never a silent overwrite."""

    def __init__(
        self,
        variables: list[ContextVariable],
        current: list[TaskContextValue],
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, prefix="context", **kwargs)  # type: ignore[misc]
        self.variables = {variable.key: variable for variable in variables}
        self._current = current
        saved = {item.variable_id: item for item in current}
        for variable in variables:
            self.fields[variable.key] = self._field(variable)
            self.fields[variable.key].show_hidden_initial = True
            item = saved.get(variable.pk)
            if item is None:
                continue
            if item.value_id is not None:
                self.initial[variable.key] = item.value.code  # type: ignore[union-attr]  # value_id is set
            else:
                # A number as it was entered (14, not the column's 14.000).
                self.initial[variable.key] = item.display_value

    @staticmethod
    def _field(variable: ContextVariable) -> forms.Field:
        return ContextValueField(
            variable, label=variable.label, required=False, help_text=variable.description
        )

    def values(self) -> dict[ContextVariable, Any]:
        """The value to set for each variable; None clears it."""
        result: dict[ContextVariable, Any] = {}
        for key, variable in self.variables.items():
            value = self.cleaned_data.get(key)
            result[variable] = None if value in (None, "") else value
        return result

    def changed_values(self) -> dict[ContextVariable, Any]:
        """The variables the editor changed (against what they saw), with their new value."""
        return {
            variable: value
            for variable, value in self.values().items()
            if variable.key in self.changed_data
        }

    def conflicts(self) -> list[str]:
        """Keys of the variables this editor changed that were saved by someone else after the
        editor loaded them (what they saw differs from what is saved now)."""
        return [
            key
            for key in self.changed_data
            if self.fields[key].has_changed(self.initial.get(key), self._seen(key))
        ]

    def _seen(self, key: str) -> Any:
        bound = self[key]
        return bound.field.hidden_widget().value_from_datadict(
            self.data, self.files, bound.html_initial_name
        )

    def taking_theirs_as_seen(self, keys: list[str]) -> "ContextValuesForm":
        """The same submission, re-offered on top of what is saved now: saving it again is a
        deliberate overwrite, made with both values in view."""
        data = cast(QueryDict, self.data).copy()
        for key in keys:
            current = self.initial.get(key)
            data[self[key].html_initial_name] = "" if current is None else str(current)
        variables = list(self.variables.values())
        again = ContextValuesForm(variables, self._current, data)
        again.is_valid()
        return again


class ResourceForm(forms.Form):
    title = forms.CharField(max_length=200, label=_("Title"))
    text = forms.CharField(
        label=_("Text (markdown)"), widget=forms.Textarea(attrs={"rows": 5}), required=False
    )
    file = forms.FileField(
        required=False,
        help_text=format_lazy(
            _("Or upload a file of at most {size}."), size=filesizeformat(RESOURCE_MAX_BYTES)
        ),
        label=_("File"),
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data.get("file")
        if upload and upload.size > RESOURCE_MAX_BYTES:
            raise ValidationError(
                gettext("%(name)s is %(size)s; the limit is %(limit)s.")
                % {
                    "name": upload.name,
                    "size": filesizeformat(upload.size),
                    "limit": filesizeformat(RESOURCE_MAX_BYTES),
                }
            )
        if upload and not upload.name.lower().endswith(RESOURCE_EXTENSIONS):
            raise ValidationError(
                gettext("%(name)s is not a file type taken here; upload one of %(types)s.")
                % {"name": upload.name, "types": ", ".join(RESOURCE_EXTENSIONS)}
            )
        return upload

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if bool(data.get("text", "").strip()) == bool(data.get("file")):
            raise ValidationError(gettext("Give either a text or a file."))
        return data


class ResourceEditForm(forms.ModelForm[TaskResource]):
    revision = RevisionField()

    class Meta:
        model = TaskResource
        fields = ["title", "text"]
        widgets = {"text": forms.Textarea(attrs={"rows": 5})}
        labels = {"text": _("Text (markdown)")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.kind == TaskResource.Kind.FILE:
            del self.fields["text"]
        if not self.is_bound:
            self.initial["revision"] = self.instance.revision


class ExclusionForm(forms.Form):
    reason = forms.CharField(
        label=_("Why it does not apply"), widget=forms.Textarea(attrs={"rows": 2}), max_length=2000
    )


class CriterionForm(forms.Form):
    """The content of a criterion version, with its ordinal scale labels as 'value: label'
    lines."""

    # Bounds: CriterionVersion's fields (rubrics.models.criteria), shown and checked here too.
    wording = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), max_length=WORDING_MAX, label=_("Wording")
    )
    passes = forms.CharField(
        label=_("What passes"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=GUIDANCE_MAX,
    )
    fails = forms.CharField(
        label=_("What fails"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=GUIDANCE_MAX,
    )
    pass_example = forms.CharField(
        label=_("Example that passes"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=GUIDANCE_MAX,
    )
    fail_example = forms.CharField(
        label=_("Example that fails"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=GUIDANCE_MAX,
    )
    weight = forms.IntegerField(
        min_value=-WEIGHT_LIMIT,
        max_value=WEIGHT_LIMIT,
        help_text=format_lazy(
            _(
                "A whole number from -{limit} to {limit}, not 0. Negative for a "
                "penalty: the criterion then names a behaviour to avoid."
            ),
            limit=WEIGHT_LIMIT,
        ),
        label=_("Weight"),
    )
    scoring_type = forms.ChoiceField(
        label=_("Scoring"), choices=CriterionVersion.ScoringType.choices, initial="binary"
    )
    # Shown only while the scoring is ordinal (static/l2annot/app.js; all shown without it).
    scale_min = forms.IntegerField(
        label=_("Scale minimum"), required=False, widget=forms.NumberInput(attrs={"data-scale": ""})
    )
    scale_max = forms.IntegerField(
        label=_("Scale maximum"), required=False, widget=forms.NumberInput(attrs={"data-scale": ""})
    )
    scale_labels = forms.CharField(
        label=_("Scale labels"),
        widget=forms.Textarea(attrs={"rows": 3, "data-scale": ""}),
        required=False,
        help_text=_("Optional, one per line: 0: not at all"),
    )
    applies_to = forms.ChoiceField(
        label=_("Applies to"),
        required=False,  # a form without it (older clients) means the whole response
        choices=CriterionVersion.AppliesTo.choices,
        initial=CriterionVersion.AppliesTo.RESPONSE,
        help_text=_(
            "A turn-level criterion is graded on each tutor turn of a dialogue "
            "(on a text response, once, as a whole)."
        ),
    )
    turn_rule = forms.ChoiceField(
        label=_("Judged true of a dialogue when true of"),
        required=False,
        choices=CriterionVersion.TurnRule.choices,
        initial=CriterionVersion.TurnRule.ALL,
        help_text=_(
            "For a turn-level criterion: every turn, at least the share below, or any "
            "turn. Turns judged N/A take no part."
        ),
    )
    turn_share = forms.IntegerField(
        label=_("Share of the turns (%)"),
        required=False,
        min_value=1,
        max_value=100,
        help_text=_("For 'a share of the turns' only: the percentage of turns, 1 to 100."),
    )
    revision = RevisionField()

    @classmethod
    def for_version(
        cls, version: CriterionVersion, revision: int, **kwargs: Any
    ) -> "CriterionForm":
        initial = {name: getattr(version, name) for name in CriterionVersion.CONTENT_FIELDS}
        initial["scale_labels"] = "\n".join(
            f"{point.value}: {point.label}" for point in version.scale_points.all()
        )
        initial["revision"] = revision
        return cls(initial=initial, **kwargs)

    def clean_weight(self) -> int:
        weight: int = self.cleaned_data["weight"]
        if weight == 0:
            raise ValidationError(
                gettext("A weight of 0 would make the criterion count for nothing.")
            )
        return weight

    def clean_scale_labels(self) -> dict[str, str]:
        labels = {}
        for line in self.cleaned_data["scale_labels"].splitlines():
            if not line.strip():
                continue
            value, sep, label = line.partition(":")
            if not sep or not value.strip().lstrip("-").isdigit() or not label.strip():
                raise ValidationError(
                    gettext("Write each label as 'value: label', not %(line)r.") % {"line": line}
                )
            labels[str(int(value))] = label.strip()
        return labels

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("scoring_type") == CriterionVersion.ScoringType.BINARY:
            data["scale_min"] = data["scale_max"] = None
            data["scale_labels"] = {}
        elif None in (data.get("scale_min"), data.get("scale_max")) or (
            data["scale_min"] >= data["scale_max"]
        ):
            self.add_error(
                "scale_max", gettext("An ordinal criterion needs a minimum below its maximum.")
            )
        data["applies_to"] = data.get("applies_to") or CriterionVersion.AppliesTo.RESPONSE
        if (
            data["applies_to"] == CriterionVersion.AppliesTo.TURN
            and data.get("scoring_type") == CriterionVersion.ScoringType.ORDINAL
        ):
            self.add_error(
                "applies_to",
                gettext(
                    "A turn-level criterion is met or not met on each turn: an ordinal "
                    "criterion applies to the whole response."
                ),
            )
        data["turn_rule"] = data.get("turn_rule") or CriterionVersion.TurnRule.ALL
        if data["turn_rule"] != CriterionVersion.TurnRule.SHARE:
            data["turn_share"] = None
        elif data.get("turn_share") is None and "turn_share" not in self.errors:
            self.add_error(
                "turn_share", gettext("'A share of the turns' needs a percentage, 1 to 100.")
            )
        return data

    def content(self) -> dict[str, Any]:
        return {
            name: self.cleaned_data[name]
            for name in (*CriterionVersion.CONTENT_FIELDS, "scale_labels")
        }


class TaskFilterForm(forms.Form):
    """The task list's filters; every field optional, so an empty form lists every task."""

    q = forms.CharField(
        label=_("Search"), required=False, help_text=_("Key, instruction or reference answer.")
    )
    competency = forms.ModelChoiceField(
        Competency.objects.none(), required=False, label=_("Competency")
    )
    sub_competency = forms.ModelChoiceField(
        SubCompetency.objects.none(), required=False, label=_("Sub-competency")
    )
    variable = forms.ModelChoiceField(
        ContextVariable.objects.none(), required=False, label=_("Context variable")
    )
    value = forms.CharField(
        label=_("Context value"),
        required=False,
        help_text=_("A listed value's label or code, a number, or words of a text."),
    )
    status = forms.ChoiceField(
        choices=[("", _("Any status")), *Task.Status.choices], required=False, label=_("Status")
    )
    language = forms.ChoiceField(required=False, label=_("Language"))

    def __init__(self, *args: Any, languages: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choice_field(self, "competency").queryset = Competency.objects.select_related("framework")
        _choice_field(self, "sub_competency").queryset = SubCompetency.objects.select_related(
            "competency"
        ).order_by("competency__framework_id", "competency__order", "order", "code")
        _choice_field(self, "variable").queryset = ContextVariable.objects.all()
        language = cast(forms.ChoiceField, self.fields["language"])
        named = sorted(((x, language_name(x)) for x in languages), key=lambda pair: pair[1])
        language.choices = [("", gettext("Any language")), *named]

    def filter(self, tasks: QuerySet[Task]) -> QuerySet[Task]:
        """`tasks` narrowed by the valid filters."""
        data = self.cleaned_data
        if data.get("q"):
            q = data["q"].strip()
            tasks = tasks.filter(
                Q(key__icontains=q) | Q(instruction__icontains=q) | Q(reference_answer__icontains=q)
            )
        if data.get("competency"):
            tasks = tasks.filter(sub_competency__competency=data["competency"])
        if data.get("sub_competency"):
            tasks = tasks.filter(sub_competency=data["sub_competency"])
        if data.get("status"):
            tasks = tasks.filter(status=data["status"])
        if data.get("language"):
            tasks = tasks.filter(language=data["language"])
        variable, value = data.get("variable"), data.get("value")
        if variable is not None:
            # One filter() call, so the variable and its value are matched on the same row.
            match = Q(context_values__variable=variable)
            if variable.has_listed_values and value:
                match &= Q(context_values__value__code__iexact=value) | Q(
                    context_values__value__label__iexact=value
                )
            elif variable.kind == ContextVariable.Kind.NUMBER and value != "":
                match &= Q(context_values__number=value)
            elif value:
                match &= Q(context_values__text__icontains=value)
            tasks = tasks.filter(match).distinct()
        return tasks

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        variable, value = data.get("variable"), (data.get("value") or "").strip()
        data["value"] = value
        if value and variable is None:
            self.add_error("variable", gettext("Choose the variable this value belongs to."))
        if value and variable is not None and variable.kind == ContextVariable.Kind.NUMBER:
            try:
                data["value"] = Decimal(value)
            except ArithmeticError:
                self.add_error(
                    "value",
                    gettext("%(label)s (%(key)s) takes a number.")
                    % {"label": variable.label, "key": variable.key},
                )
        return data
