"""Studies: who grades which response against which frozen rubric (the pool, its expertise,
the 1-5 questions, the study items and their assignments)."""

import secrets
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.roles import Role
from audit.editing import OrderedQuerySet
from core import languages
from core.stats.ppi_planning import DEFAULT_FLOOR_SHARE
from rubrics.models import Response, RubricVersion
from taxonomy.models import Framework, SubCompetency


def new_seed() -> int:
    return secrets.randbelow(2**31)


class StudyQuerySet(models.QuerySet["Study"]):
    def find(self, key: str) -> "Study | None":
        """The study whose id or name is `key` (as people type it on a command line; names
        are unique ignoring case, so they are matched ignoring case)."""
        study = self.filter(pk=int(key)).first() if key.isdigit() else None
        return study or self.filter(name__iexact=key).first()

    def with_progress(self) -> "StudyQuerySet":
        """Each study with .items_count (gold checks included), .gold_checks_count,
        .assignments_count and .submitted_count, in the same query."""

        # One count subquery each: a join of items to assignments, counted DISTINCT, grouped
        # and sorted rows by the thousand in a large study.
        def count(model: type[models.Model], study: str, **where: object) -> Coalesce:
            rows = model._default_manager.filter(**{study: OuterRef("pk")}, **where)
            counted = rows.order_by().values(study).annotate(n=models.Count("pk")).values("n")
            return Coalesce(Subquery(counted), 0)

        return self.annotate(
            items_count=count(StudyItem, "study"),
            gold_checks_count=count(StudyItem, "study", gold_source__isnull=False),
            assignments_count=count(Assignment, "study_item__study"),
            submitted_count=count(
                Assignment, "study_item__study", status=Assignment.Status.SUBMITTED
            ),
        )


class Escalation(models.TextChoices):
    OFF = "off", _("Never")
    ANY = "any", _("On any criterion")
    LOW = "low", _("On criteria below a threshold")


SPLIT_REASONS = {
    "criterion_unclear": _("Criterion unclear"),
    "response_ambiguous": _("Response ambiguous"),
    "grader_slip": _("Grader slip"),
    "guidance_missing": _("Guidance missing"),
}


def default_split_reasons() -> list[str]:
    """A new study's reasons experts split: the built-in ones, by key."""
    return list(SPLIT_REASONS)


def split_reason_label(reason: str) -> str:
    """A reason as a person reads it: a built-in one translated, a study's own as written."""
    return str(SPLIT_REASONS.get(reason, reason))


class Study(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    Escalation = Escalation

    name = models.CharField(max_length=200, verbose_name=_("name"))
    framework = models.ForeignKey(
        Framework, on_delete=models.PROTECT, related_name="studies", verbose_name=_("framework")
    )
    description = models.TextField(blank=True, verbose_name=_("description"))
    overlap = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1)],
        help_text=_("How many independent graders each response needs (k)."),
        verbose_name=_("overlap"),
    )
    overlap_percent = models.PositiveSmallIntegerField(
        default=100,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text=_(
            "Share of the responses (in %) graded by k graders; the rest get one grader, "
            "chosen by the study's seed."
        ),
        verbose_name=_("overlap percent"),
    )
    escalation = models.CharField(
        max_length=8,
        choices=Escalation.choices,
        default=Escalation.OFF,
        help_text=_("When the submitted graders of a response disagree, assign one more grader."),
        verbose_name=_("escalation"),
    )
    escalation_threshold = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(-1), MaxValueValidator(1)],
        help_text=_(
            "Escalate only on criteria whose Krippendorff's alpha in this study is below "
            "this (with 'criteria below a threshold')."
        ),
        verbose_name=_("escalation threshold"),
    )
    escalation_cap = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(2)],
        help_text=_("Most graders a response may reach by escalation."),
        verbose_name=_("escalation cap"),
    )
    gold_rate = models.PositiveSmallIntegerField(
        default=0,
        validators=[MaxValueValidator(50)],
        help_text=_("Share (in %) of each annotator's queue made of gold checks, unannounced."),
        verbose_name=_("gold rate"),
    )
    gold_warning = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_(
            "Warn maintainers when an annotator's accuracy on gold checks is below this (0 to 1)."
        ),
        verbose_name=_("gold warning"),
    )
    qualification_items = models.PositiveSmallIntegerField(
        default=0,
        help_text=_(
            "Gold checks a new annotator grades first, before any real response; "
            "0: no qualification round."
        ),
        verbose_name=_("qualification items"),
    )
    qualification_accuracy = models.FloatField(
        default=0.8,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("Accuracy (0 to 1) on the qualification round needed to go on to real items."),
        verbose_name=_("qualification accuracy"),
    )
    # Sampled for the judge's scores (grading.services.sampling): which responses the experts
    # grade was drawn by this run's uncertainty, and each item keeps its inclusion probability.
    sampling_run = models.ForeignKey(
        "judging.JudgeRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sampled_studies",
        help_text=_(
            "Draw the responses the experts grade by this judge run's uncertainty (its stated "
            "probabilities, else its epochs' disagreement); empty: every response selected is "
            "graded."
        ),
        verbose_name=_("sample for the judge's scores"),
    )
    sampling_budget = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(2)],
        help_text=_("Responses of each model the experts should grade, on average."),
        verbose_name=_("expert grades per model"),
    )
    sampling_floor = models.FloatField(
        default=DEFAULT_FLOOR_SHARE,
        validators=[MinValueValidator(0.01), MaxValueValidator(1)],
        help_text=_(
            "No response is drawn with a probability under this share of the uniform rate "
            "(1: uniform), so that no expert grade weighs more than 1/floor uniform ones."
        ),
        verbose_name=_("sampling floor"),
    )
    # Why experts split, as adjudicators record it (GoldVerdict.split_reason): the study's list.
    # The built-in ones are stored by key and shown translated; a study may add its own words.
    split_reasons = models.JSONField(
        default=default_split_reasons,
        blank=True,
        help_text=_(
            "The reasons an adjudicator chooses from for why the experts split, one per line."
        ),
        verbose_name=_("reasons experts split"),
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="PoolMember",
        related_name="grading_studies",
        verbose_name=_("annotators"),
    )
    match_expertise = models.BooleanField(
        default=False,
        help_text=_(
            "Give a response only to annotators tagged for its sub-competency and language."
        ),
        verbose_name=_("match expertise"),
    )
    deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("deadline"))
    status = models.CharField(
        max_length=8, choices=Status.choices, default=Status.OPEN, verbose_name=_("status")
    )
    # Whether the webhooks were told that the study closed (grading.deadlines): once per
    # closing, by a maintainer or by the deadline, which has no moment of its own.
    closing_told = models.BooleanField(
        default=False,
        editable=False,
        help_text=_("The webhooks were told that this study closed."),
        verbose_name=_("closing told"),
    )
    require_rationale_on_fail = models.BooleanField(
        default=True, verbose_name=_("require rationale on fail")
    )
    show_grader_names_to_adjudicator = models.BooleanField(
        default=False, verbose_name=_("show grader names to adjudicator")
    )
    seed = models.PositiveIntegerField(
        default=new_seed,
        help_text=_("Seeds the assignment and each annotator's item order."),
        verbose_name=_("seed"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    objects = StudyQuerySet.as_manager()
    # Set on the studies of StudyQuerySet.with_progress() only.
    items_count: int
    gold_checks_count: int
    assignments_count: int
    submitted_count: int

    class Meta:
        verbose_name = _("study")
        verbose_name_plural = _("studies")
        ordering = ["-created_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(overlap__gte=1), name="study_overlap_gte_1"),
            # Two studies named alike confuse the people who pick one from a list.
            models.UniqueConstraint(
                Lower("name"),
                name="study_name_unique_ignoring_case",
                violation_error_message=_(
                    "A study of this name already exists (names are "
                    "compared without regard to case): choose another name."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.escalation != Escalation.OFF and self.escalation_cap is None:
            errors["escalation_cap"] = "Escalation needs a cap: the most graders a response gets."
        elif self.escalation_cap is not None and self.escalation_cap <= (self.overlap or 1):
            errors["escalation_cap"] = (
                f"The cap must be above k ({self.overlap}): escalation adds graders beyond it."
            )
        if self.escalation == Escalation.LOW and self.escalation_threshold is None:
            errors["escalation_threshold"] = "Set the agreement below which a criterion escalates."
        if self.sampling_run_id is not None and self.sampling_budget is None:
            errors["sampling_budget"] = gettext(
                "Sampling for the judge's scores needs the expert grades wanted per model."
            )
        if errors:
            raise ValidationError(errors)

    def is_closed(self, now: datetime | None = None) -> bool:
        """Closed by a maintainer, or past its deadline: no grade may change any more."""
        now = now or timezone.now()
        return self.status == self.Status.CLOSED or (
            self.deadline is not None and now >= self.deadline
        )


def graders() -> "models.QuerySet[User]":
    """Who may join a study's pool: active annotators (the Annotator role). The study pages
    offer them, and `check_graders` refuses anyone else."""
    return User.objects.filter(is_active=True, groups__name=Role.ANNOTATOR.value)


def check_graders(people: Iterable[User], field: str = "annotators") -> None:
    """A study's pool holds `graders()` only: the services that add to a pool (study creation,
    adding annotators), the API and the Django admin refuse anyone else, naming them (a
    ValidationError on `field`)."""
    people = list(people)
    allowed = set(
        graders().filter(pk__in=[person.pk for person in people]).values_list("pk", flat=True)
    )
    refused = sorted(person.username for person in people if person.pk not in allowed)
    if refused:
        raise ValidationError(
            {
                field: gettext(
                    "Only active annotators grade in a study: %(people)s cannot join its pool "
                    "(an admin gives the Annotator role on the People page)."
                )
                % {"people": ", ".join(refused)}
            }
        )


class PoolMember(models.Model):
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="pool", verbose_name=_("study")
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="study_memberships",
        verbose_name=_("annotator"),
    )
    capacity = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("Most responses this annotator grades; empty: no limit."),
        verbose_name=_("capacity"),
    )

    class Meta:
        verbose_name = _("pool member")
        verbose_name_plural = _("pool members")
        ordering = ["study", "annotator__username"]
        constraints = [
            models.UniqueConstraint(fields=["study", "annotator"], name="pool_member_once")
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.study}"

    def clean(self) -> None:
        if self.annotator_id is not None:
            check_graders([self.annotator], field="annotator")


class Expertise(models.Model):
    """One tag saying what an annotator may grade: a sub-competency or a target language.

    An annotator with no sub-competency tags may grade every sub-competency; likewise for
    languages. Studies use the tags only when `match_expertise` is on."""

    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="expertise",
        verbose_name=_("annotator"),
    )
    sub_competency = models.ForeignKey(
        SubCompetency,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("sub-competency"),
    )
    language = models.CharField(
        max_length=8,
        choices=languages.CHOICES,
        blank=True,
        help_text=_("ISO 639-1 code."),
        verbose_name=_("language"),
    )

    class Meta:
        verbose_name = _("expertise")
        verbose_name_plural = _("expertise")
        constraints = [
            models.CheckConstraint(
                condition=(Q(sub_competency__isnull=False) & Q(language=""))
                | (Q(sub_competency__isnull=True) & ~Q(language="")),
                name="expertise_one_tag",
            ),
            models.UniqueConstraint(
                fields=["annotator", "sub_competency"],
                condition=Q(sub_competency__isnull=False),
                name="expertise_sub_competency_once",
            ),
            models.UniqueConstraint(
                fields=["annotator", "language"],
                condition=~Q(language=""),
                name="expertise_language_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotator}: {self.sub_competency or self.get_language_display()}"


QUESTION_KEY_LENGTH = 50


def question_keys(prompts: "list[str] | tuple[str, ...]") -> list[str]:
    """A short slug per prompt, unique among them: the prompt's first words ("this-task-is-
    authentic"), then "-2", "-3" for a repeat. A judge's 1-5 ratings name the question by it."""
    keys: list[str] = []
    for prompt in prompts:
        words = slugify(prompt).split("-")
        base = ""
        for word in words:
            if base and len(base) + 1 + len(word) > QUESTION_KEY_LENGTH - 4:
                break
            base = f"{base}-{word}" if base else word
        base = base[: QUESTION_KEY_LENGTH - 4] or "question"
        key, n = base, 2
        while key in keys:
            key, n = f"{base}-{n}", n + 1
        keys.append(key)
    return keys


# The texts the app writes for a study's 1-5 questions unless the study gives its own: stored
# as written (files, exports and the judge read them so), shown in the reader's language.
DEFAULT_LIKERT_PROMPTS = (
    gettext_noop("This task is authentic: a teacher could meet it in their work."),
    gettext_noop("The criteria are adequate for judging a response to this task."),
)
DEFAULT_LIKERT_LABELS = (
    gettext_noop("Strongly disagree"),
    gettext_noop("Disagree"),
    gettext_noop("Neither agree nor disagree"),
    gettext_noop("Agree"),
    gettext_noop("Strongly agree"),
)
APP_WRITTEN_LIKERT_TEXTS = frozenset(DEFAULT_LIKERT_PROMPTS + DEFAULT_LIKERT_LABELS)


def shown_likert_text(text: str) -> str:
    """A question's or scale label's text as a reader sees it: the app's own default in the
    reader's language, a text the study's maintainers wrote as they wrote it."""
    return gettext(text) if text in APP_WRITTEN_LIKERT_TEXTS else text


class LikertItem(models.Model):
    """A 1-5 rating asked once per graded response, e.g. "Is this task authentic?"."""

    SCALE = range(1, 6)

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="likert_items", verbose_name=_("study")
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    key = models.SlugField(
        max_length=QUESTION_KEY_LENGTH,
        help_text=_("Names the question in files: a judge's 1-5 ratings are matched on it."),
        verbose_name=_("key"),
    )
    prompt = models.CharField(max_length=300, verbose_name=_("prompt"))
    label_1 = models.CharField(
        max_length=60, default=DEFAULT_LIKERT_LABELS[0], verbose_name=_("label 1")
    )
    label_2 = models.CharField(
        max_length=60, default=DEFAULT_LIKERT_LABELS[1], verbose_name=_("label 2")
    )
    label_3 = models.CharField(
        max_length=60, default=DEFAULT_LIKERT_LABELS[2], verbose_name=_("label 3")
    )
    label_4 = models.CharField(
        max_length=60, default=DEFAULT_LIKERT_LABELS[3], verbose_name=_("label 4")
    )
    label_5 = models.CharField(
        max_length=60, default=DEFAULT_LIKERT_LABELS[4], verbose_name=_("label 5")
    )

    class Meta:
        verbose_name = _("rating question")
        verbose_name_plural = _("rating questions")
        ordering = ["study", "order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "key"], name="likert_item_key_once"),
            models.CheckConstraint(condition=~Q(key=""), name="likert_item_key_not_empty"),
        ]

    def __str__(self) -> str:
        return self.prompt

    @property
    def shown_prompt(self) -> str:
        return shown_likert_text(self.prompt)

    def scale(self) -> list[tuple[int, str]]:
        """(value, label) of the 1-5 scale, as a reader sees the labels."""
        return [(value, shown_likert_text(getattr(self, f"label_{value}"))) for value in self.SCALE]


class StudyItemQuerySet(models.QuerySet["StudyItem"]):
    def data(self) -> "StudyItemQuerySet":
        """The study's own responses, gold checks left out."""
        return self.filter(gold_source__isnull=True)

    def gold_checks(self) -> "StudyItemQuerySet":
        return self.filter(gold_source__isnull=False)


class StudyItem(models.Model):
    """One response in a study, with the rubric version it is graded against (the task's latest
    published one when the response was added)."""

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="items", verbose_name=_("study")
    )
    response = models.ForeignKey(
        Response, on_delete=models.PROTECT, related_name="study_items", verbose_name=_("response")
    )
    rubric_version = models.ForeignKey(
        RubricVersion,
        on_delete=models.PROTECT,
        related_name="study_items",
        verbose_name=_("rubric version"),
    )
    graders_wanted = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_(
            "Graders this response needs; empty: the study's k. One for the responses "
            "left out of the overlap, raised by escalation."
        ),
        verbose_name=_("graders wanted"),
    )
    inclusion_probability = models.FloatField(
        null=True,
        blank=True,
        help_text=_(
            "The probability this response had of being drawn for the experts, in a study "
            "sampled for the judge's scores (its grade weighs 1/p); empty: not drawn."
        ),
        verbose_name=_("inclusion probability"),
    )
    gold_source = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="gold_checks",
        help_text=_(
            "A gold check: the adjudicated item (of another study) whose gold verdicts "
            "its grades are scored against. Gold checks are not study data."
        ),
        verbose_name=_("gold source"),
    )

    objects = StudyItemQuerySet.as_manager()

    class Meta:
        verbose_name = _("study item")
        verbose_name_plural = _("study items")
        ordering = ["study", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "response"], name="study_item_response_once"),
            models.CheckConstraint(
                condition=Q(inclusion_probability__isnull=True)
                | Q(inclusion_probability__gt=0, inclusion_probability__lte=1),
                name="study_item_inclusion_probability_in_0_1",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study} item {self.pk}"


class AssignmentQuerySet(OrderedQuerySet["Assignment"]):
    order_field = "position"

    def of(self, user: User | int) -> "AssignmentQuerySet":
        """The assignments `user` grades: the one way pages, the API, uploads and the services
        reach an assignment to open, grade, rate or submit, so another grader's is not found."""
        return self.filter(annotator=user)


class Assignment(models.Model):
    class Status(models.TextChoices):
        ASSIGNED = "assigned", _("Assigned")
        IN_PROGRESS = "in_progress", _("In progress")
        SUBMITTED = "submitted", _("Submitted")

    study_item = models.ForeignKey(
        StudyItem,
        on_delete=models.CASCADE,
        related_name="assignments",
        verbose_name=_("study item"),
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="assignments",
        verbose_name=_("annotator"),
    )
    position = models.PositiveIntegerField(
        help_text=_("Place in this annotator's random order."), verbose_name=_("position")
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ASSIGNED, verbose_name=_("status")
    )
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    last_activity_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("last activity at")
    )
    submitted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("submitted at"))
    time_spent_seconds = models.PositiveIntegerField(
        default=0, verbose_name=_("time spent (seconds)")
    )
    skipped_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_(
            "Set aside by its grader with a flag: out of their queue until a maintainer "
            "resolves the flag (returns it to them or gives it to another grader)."
        ),
        verbose_name=_("skipped at"),
    )

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        ordering = ["annotator", "position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["study_item", "annotator"], name="assignment_one_per_annotator_and_item"
            ),
            models.CheckConstraint(
                condition=Q(status="submitted", submitted_at__isnull=False)
                | (~Q(status="submitted") & Q(submitted_at__isnull=True)),
                name="assignment_submitted_at_matches_status",
            ),
        ]
        indexes = [models.Index(fields=["annotator", "status", "position"])]

    def __str__(self) -> str:
        return f"{self.study_item} for {self.annotator}"

    @property
    def is_submitted(self) -> bool:
        return self.status == self.Status.SUBMITTED
