from typing import Any, cast
from urllib.parse import urlencode

from django import forms
from django.db.models import Count, Exists, Field, OuterRef, Q, QuerySet
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from core.scoring import verdict_labels
from grading import services
from grading.models import (
    SPLIT_REASONS,
    Confidence,
    Flag,
    LikertItem,
    Study,
    StudyItem,
    Verdict,
    graders,
    split_reason_label,
)
from grading.templatetags.grading_verdicts import shown
from rubrics.forms import TaskFilterForm
from rubrics.models import Response, RubricVersion, Task
from taxonomy.models import Framework

# Settings of adaptive overlap and gold checks a running study may change (the share of
# responses graded by k and the qualification round are fixed when it is created).
ESCALATION_FIELDS = ["escalation", "escalation_threshold", "escalation_cap"]
OVERLAP_FIELDS = ["overlap_percent", *ESCALATION_FIELDS]
GOLD_FIELDS = ["gold_rate", "gold_warning"]
SAMPLING_FIELDS = ["sampling_run", "sampling_budget", "sampling_floor"]
DEFAULTED = (
    "sampling_floor",
    "overlap_percent",
    "escalation",
    "gold_rate",
    "qualification_items",
    "qualification_accuracy",
)


class StudyForm(forms.ModelForm[Study]):
    """A new study's settings and pool; which responses it holds is the StudySelectionForm's."""

    annotators = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(), widget=forms.CheckboxSelectMultiple, label=_("Annotators")
    )
    assign_now = forms.BooleanField(required=False, initial=True, label=_("Assign graders now"))

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
            *OVERLAP_FIELDS,
            *GOLD_FIELDS,
            "qualification_items",
            "qualification_accuracy",
            *SAMPLING_FIELDS,
        ]
        widgets = {"deadline": forms.DateTimeInput(attrs={"type": "datetime-local"})}
        labels = {
            "overlap": _("Graders per response (k)"),
            "overlap_percent": _("Overlap share (%)"),
        }

    def groups(self) -> list[tuple[Any, Any, list[forms.BoundField]]]:
        """(legend, explanation, fields) in the order the page shows them."""
        gold = [*GOLD_FIELDS, "qualification_items", "qualification_accuracy"]
        adaptive = {*OVERLAP_FIELDS, *gold, *SAMPLING_FIELDS}
        return [
            (_("Study"), "", [self[name] for name in self.fields if name not in adaptive]),
            (
                _("Adaptive overlap"),
                _(
                    "k graders on the overlap share of the responses, one on the rest (chosen at "
                    "random with the study's seed). Escalation adds one more grader to a response "
                    "whose graders disagree, up to the cap."
                ),
                [self[name] for name in OVERLAP_FIELDS],
            ),
            (
                _("Gold checks"),
                _(
                    "Responses with adjudicated verdicts, added on the study's page once it "
                    "exists, mixed into every queue unannounced at this rate: their grades "
                    "measure each annotator's accuracy and are not study data. A qualification "
                    "round gives a new annotator that many gold checks before any other response."
                ),
                [self[name] for name in gold],
            ),
            (
                _("Sample for the judge's scores"),
                _(
                    "Choose a judge run that judged the responses selected, asked for the "
                    "judge's probability or with several epochs: of each model's responses the "
                    "experts then grade about the number asked, drawn with the study's seed, "
                    "the responses the judge was less sure of (by its stated probability, else "
                    "by its epochs' disagreement) more likely, and none less likely than the "
                    "floor's share of the even rate. Each keeps the probability it had of being "
                    "drawn, and the leaderboard's prediction-powered scores weigh its grade by "
                    "its inverse. Empty: the experts grade every response selected."
                ),
                [self[name] for name in SAMPLING_FIELDS],
            ),
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        annotators = cast(forms.ModelMultipleChoiceField[User], self.fields["annotators"])
        annotators.queryset = graders().order_by("username")
        # Left out of a form (or a script's POST): the model's default, a plain study.
        for name in DEFAULTED:
            self.fields[name].required = False
        # The judge's runs that gave verdicts, through the model's own foreign key: the judge
        # app sits above grading, which does not import it.
        run = cast(forms.ModelChoiceField[Any], self.fields["sampling_run"])
        runs = run.queryset
        assert runs is not None
        run.queryset = runs.filter(
            pk__in=runs.filter(verdicts__isnull=False).values("pk")
        ).order_by("-created_at", "-pk")
        run.empty_label = gettext("None: grade every response selected")
        frameworks = list(Framework.objects.values_list("pk", flat=True)[:2])
        if len(frameworks) == 1:
            self.initial.setdefault("framework", frameworks[0])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for name in DEFAULTED:
            if data.get(name) in (None, ""):
                data[name] = cast(Field[Any, Any], Study._meta.get_field(name)).get_default()
        return data


class GradesPlanForm(forms.Form):
    """The target of the "how many expert grades?" answer on the study setup page, and the
    judge's accuracy assumed where none was measured (grading.services.plan_expert_grades)."""

    plan_half_width = forms.FloatField(
        min_value=0.005,
        max_value=0.5,
        required=False,
        initial=services.DEFAULT_HALF_WIDTH,
        label=_("Target half-width (±)"),
        help_text=_("Of each model's score, as a share: 0.05 is ± 5 points."),
    )
    plan_accuracy = forms.FloatField(
        min_value=0.5,
        max_value=1.0,
        required=False,
        initial=services.DEFAULT_ACCURACY,
        label=_("Judge's accuracy, if none was measured"),
        help_text=_("The share of the judge's verdicts that match the experts'."),
    )

    def target(self) -> tuple[float, float]:
        """(half-width, accuracy) asked for, the defaults where a field is empty or invalid."""
        data = self.cleaned_data if self.is_valid() else {}
        half_width = data.get("plan_half_width") or services.DEFAULT_HALF_WIDTH
        accuracy = data.get("plan_accuracy") or services.DEFAULT_ACCURACY
        return half_width, accuracy


def published_tasks() -> QuerySet[Task]:
    """Tasks with a published rubric version: a study grades against it."""
    return Task.objects.filter(Exists(RubricVersion.objects.filter(task=OuterRef("pk"))))


class StudySelectionForm(TaskFilterForm):
    """Which responses a new study holds: every response of the published tasks that match the
    filters, or of the tasks ticked among them; `model` keeps one model's responses."""

    MATCHING, CHOSEN = "matching", "chosen"

    model = forms.ChoiceField(required=False, label=_("Model"))
    scope = forms.ChoiceField(
        choices=[(MATCHING, _("All tasks that match")), (CHOSEN, _("Only the tasks ticked"))],
        required=False,
        widget=forms.RadioSelect,
        label=_("Responses of"),
    )
    tasks = forms.ModelMultipleChoiceField(
        queryset=Task.objects.none(), required=False, widget=forms.MultipleHiddenInput
    )
    FILTERS = ("competency", "sub_competency", "language", "variable", "value", "status", "model")

    def __init__(self, *args: Any, languages: list[str], models: list[str], **kwargs: Any) -> None:
        super().__init__(*args, languages=languages, **kwargs)
        self.fields["status"].label = _("Review status")
        model = cast(forms.ChoiceField, self.fields["model"])
        model.choices = [("", gettext("Any model"))] + [(m, m) for m in models]
        cast(
            forms.ModelMultipleChoiceField[Task], self.fields["tasks"]
        ).queryset = published_tasks()

    def filter_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("q", *self.FILTERS)]

    @property
    def scope_value(self) -> str:
        """The scope asked for, whatever else of the form is valid; by default "chosen" once a
        task is ticked."""
        scope = self._valid("scope")
        if scope in (self.MATCHING, self.CHOSEN):
            return str(scope)
        return self.CHOSEN if self.is_bound and self.chosen_ids() else self.MATCHING

    def chosen_ids(self) -> set[int]:
        """The tasks ticked, whatever else of the form is valid (a filter's mistake loses no
        tick)."""
        return {t.pk for t in self._valid("tasks") or []}

    def _valid(self, name: str) -> Any:
        """A field's cleaned value (None when unbound or invalid), other fields' errors aside."""
        if not self.is_bound:
            return None
        self.is_valid()
        return self.cleaned_data.get(name)

    def filters_valid(self) -> bool:
        return not self.is_bound or not any(name in self.errors for name in ("q", *self.FILTERS))

    def list_key(self, framework: Framework | None) -> str:
        """What the list of matching tasks is built from (the framework and the filters): the
        page shown stays while it is the same, and a changed filter starts again at page 1."""
        values = [("framework", str(framework.pk if framework else ""))]
        values += [(name, str(self[name].value() or "")) for name in ("q", *self.FILTERS)]
        return urlencode(values)

    def _responses_filter(self, prefix: str = "") -> Q:
        """The responses a new study takes: current versions (of the chosen model)."""
        model = self._valid("model")
        current = Q(**{f"{prefix}superseded_at__isnull": True})
        return current & Q(**{f"{prefix}model_name": model}) if model else current

    def matching(self, framework: Framework | None) -> QuerySet[Task]:
        """The published tasks of `framework` that match the filters, each with the number of
        its responses (current versions, of the chosen model) as .responses_count."""
        tasks = published_tasks()
        if framework is not None:
            tasks = tasks.filter(framework=framework)
        if self.is_bound:
            tasks = self.filter(tasks) if self.filters_valid() else tasks.none()
        return (
            tasks.select_related("sub_competency")
            .annotate(
                responses_count=Count("responses", filter=self._responses_filter("responses__"))
            )
            .order_by("key", "pk")
        )

    def selected_tasks(self, framework: Framework | None) -> QuerySet[Task]:
        if self.scope_value == self.MATCHING:
            return self.matching(framework)
        tasks = published_tasks().filter(pk__in=self.chosen_ids())
        return tasks if framework is None else tasks.filter(framework=framework)

    def responses(self, framework: Framework | None) -> QuerySet[Response]:
        """The responses the study would hold: the current version of each."""
        chosen = self.selected_tasks(framework).values("pk")
        return Response.objects.filter(self._responses_filter(), task__in=chosen)


class GoldVerdictForm(forms.Form):
    """An adjudicator's verdict on one pair; `revision` is the gold revision they saw (0: none)."""

    verdict = forms.ChoiceField(
        choices=Verdict.choices, widget=forms.RadioSelect, label=_("Verdict")
    )
    note = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label=_("Note")
    )
    split_reason = forms.ChoiceField(required=False, label=_("Why the experts split"))
    confidence = forms.ChoiceField(
        required=False,
        choices=[("", _("not said")), *Confidence.choices],
        label=_("Your confidence"),
    )
    revision = forms.IntegerField(min_value=0, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        penalty: bool = False,
        scale: list[tuple[int, str]] | None = None,
        reasons: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        reason = self.fields["split_reason"]
        assert isinstance(reason, forms.ChoiceField)
        reason.choices = [("", _("not said"))] + [(r, split_reason_label(r)) for r in reasons or []]
        # The stored values stay pass / fail / na; a penalty's read Present / Absent / N/A.
        verdict = self.fields["verdict"]
        assert isinstance(verdict, forms.ChoiceField)
        labels = verdict_labels(penalty=penalty)
        if scale:  # an ordinal criterion: its levels (by number), then N/A
            verdict.choices = [(str(v), f"{v} {label}".strip()) for v, label in scale] + [
                ("na", shown(labels["na"]))
            ]
        else:
            verdict.choices = [(v, shown(label)) for v, label in labels.items()]

    def answer(self) -> tuple[str, int | None]:
        """(verdict, level) of a valid form: a level's choice is its number."""
        choice = self.cleaned_data["verdict"]
        return ("", int(choice)) if choice.lstrip("-").isdigit() else (choice, None)


class StudySettingsForm(forms.ModelForm[Study]):
    """What may change once a study runs (grading.services.SETTINGS_FIELDS). A setting of
    adaptive overlap or gold checks left out of the form keeps its value."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("escalation", "gold_rate"):
            self.fields[name].required = False

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for name in ("escalation", "gold_rate"):
            if data.get(name) in (None, ""):
                data[name] = getattr(self.instance, name)
        return data

    class Meta:
        model = Study
        fields = [
            "description",
            "match_expertise",
            "deadline",
            "require_rationale_on_fail",
            "show_grader_names_to_adjudicator",
            *ESCALATION_FIELDS,
            *GOLD_FIELDS,
        ]
        widgets = {"deadline": forms.DateTimeInput(attrs={"type": "datetime-local"})}


class GoldChecksForm(forms.Form):
    """Adjudicated items of other studies to add as gold checks (grading.gold.gold_candidates)."""

    sources = forms.ModelMultipleChoiceField(
        queryset=StudyItem.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        label=_("Adjudicated responses to add as gold checks"),
    )

    def __init__(self, *args: Any, candidates: QuerySet[StudyItem], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ModelMultipleChoiceField[Any], self.fields["sources"])  # annotated items
        field.queryset = candidates
        field.label_from_instance = lambda item: (  # type: ignore[method-assign,assignment]
            _("%(task)s · %(model)s (%(n)d gold verdicts, %(study)s)")
            % {
                "task": item.response.task.key,
                "model": item.response.model_name,
                "n": item.gold_count,
                "study": item.study.name,
            }
        )


class AddAnnotatorsForm(forms.Form):
    annotators = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        label=_("Add to the pool"),
    )

    def __init__(self, *args: Any, study: Study, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ModelMultipleChoiceField[User], self.fields["annotators"])
        field.queryset = graders().exclude(study_memberships__study=study).order_by("username")


class LikertQuestionsForm(forms.Form):
    prompts = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        label=_("Questions asked with every response"),
        help_text=_("One question per line, each rated from 1 to 5."),
    )

    def clean_prompts(self) -> list[str]:
        raw = cast(str, self.cleaned_data["prompts"])
        prompts = [line.strip() for line in raw.splitlines() if line.strip()]
        limit = LikertItem._meta.get_field("prompt").max_length or 300
        if any(len(p) > limit for p in prompts):
            raise forms.ValidationError(
                gettext("A question has at most %(limit)s characters.") % {"limit": limit}
            )
        return prompts


class SplitReasonsForm(forms.Form):
    """A study's reasons experts split, one per line: a built-in one by its label (in any
    language the interface speaks) or its key, the study's own as written."""

    reasons = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        required=False,
        label=_("Reasons an adjudicator chooses from"),
        help_text=_("One reason per line, at most 100 characters each."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        initial = kwargs.get("initial") or {}
        if isinstance(initial.get("reasons"), list):
            kwargs["initial"] = initial | {
                "reasons": "\n".join(split_reason_label(r) for r in initial["reasons"])
            }
        super().__init__(*args, **kwargs)

    def clean_reasons(self) -> list[str]:
        raw = cast(str, self.cleaned_data["reasons"])
        reasons: list[str] = []
        for line in (line.strip() for line in raw.splitlines()):
            if not line:
                continue
            if len(line) > 100:
                raise forms.ValidationError(gettext("A reason has at most 100 characters."))
            key = next(
                (key for key, label in SPLIT_REASONS.items() if line in (key, str(label))), line
            )
            if key not in reasons:
                reasons.append(key)
        return reasons


class FlagForm(forms.Form):
    """A grader's flag on their response or one of its criteria (grading.flags.raise_flag)."""

    kind = forms.ChoiceField(choices=Flag.Kind.choices, widget=forms.RadioSelect, label=_("Kind"))
    comment = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label=_("Comment")
    )
    skip = forms.BooleanField(required=False, label=_("Skip"))
    criterion_version = forms.IntegerField(required=False, widget=forms.HiddenInput)


class ResolveFlagForm(forms.Form):
    """A maintainer's resolution of a flag (grading.flags.resolve_flag)."""

    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), label=_("Note"))
    outcome = forms.ChoiceField(
        choices=[("", ""), *Flag.Outcome.choices], required=False, label=_("Outcome")
    )
    reassign_to = forms.ModelChoiceField(
        queryset=User.objects.none(), required=False, label=_("Reassign to")
    )
    open_draft = forms.BooleanField(required=False, label=_("Open draft"))

    def __init__(self, *args: Any, candidates: list[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        reassign_to = cast(forms.ModelChoiceField[User], self.fields["reassign_to"])
        reassign_to.queryset = User.objects.filter(pk__in=[u.pk for u in candidates])
