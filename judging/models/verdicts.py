"""What a judge's run said of each response, its ratings, and how a maintainer resolved the
units where it differs from the experts."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from judging.models.prompts import PromptVersion
from judging.models.runs import JudgeRun
from rubrics.models import CriterionVersion, Response, Turn


class JudgeVerdictQuerySet(models.QuerySet["JudgeVerdict"]):
    def per_response(self) -> "JudgeVerdictQuerySet":
        """The verdicts on whole responses: one per run, response, criterion version and
        epoch (on a turn-level criterion, its turns folded by the criterion's rule). What
        scores, leaderboards and per-response figures count."""
        return self.filter(turn__isnull=True)

    def per_turn(self) -> "JudgeVerdictQuerySet":
        """The verdicts on single tutor turns of a dialogue (turn-level criteria)."""
        return self.filter(turn__isnull=False)


class JudgeVerdict(models.Model):
    """The judge's verdict on one criterion (at the version it judged) for one response: true
    or false on a binary criterion, a `level` of the scale on an ordinal one.

    On a turn-level criterion of a dialogue the judge answers once per tutor turn (`turn`);
    those rows sit beside the response's verdict (`turn` empty), which folds them by the
    criterion's rule (core.scoring.turn_outcome). Count whole responses with
    `JudgeVerdict.objects.per_response()`, turns with `per_turn()`."""

    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("run")
    )
    response = models.ForeignKey(
        Response, on_delete=models.PROTECT, related_name="+", verbose_name=_("response")
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("criterion version"),
    )
    epoch = models.PositiveIntegerField(default=1, verbose_name=_("epoch"))
    verdict = models.BooleanField(
        null=True,
        help_text=_("Empty when the judge's answer was still unparseable after retries."),
        verbose_name=_("verdict"),
    )
    level = models.IntegerField(
        null=True,
        blank=True,
        help_text=_("The judge's level on an ordinal criterion."),
        verbose_name=_("level"),
    )
    rationale = models.TextField(
        blank=True,
        help_text=_(
            "The judge's output, its first JUDGE_RATIONALE_MAX_CHARS characters (the run's .eval "
            "log keeps all of it)."
        ),
        verbose_name=_("rationale"),
    )
    pass_probability = models.FloatField(
        null=True,
        blank=True,
        help_text=_(
            "The judge's stated probability (0 to 1) that the response meets the criterion, "
            "when its run asked for one and the answer gave a readable one."
        ),
        verbose_name=_("stated probability"),
    )
    # A judged dialogue's turns are never replaced: a change to it is the response's next
    # version (rubrics.responses), and these verdicts stay with the turns they judged.
    turn = models.ForeignKey(
        Turn,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text=_(
            "The tutor turn judged, on a turn-level criterion; empty for the verdict on "
            "the whole response."
        ),
        verbose_name=_("turn"),
    )

    objects = JudgeVerdictQuerySet.as_manager()

    class Meta:
        verbose_name = _("judge verdict")
        verbose_name_plural = _("judge verdicts")
        ordering = ["run", "response", "criterion_version", "epoch"]
        constraints = [
            # One verdict per response, and one per tutor turn: a NULL turn never collides in
            # a unique constraint, so each kind has its own (partial) constraint.
            models.UniqueConstraint(
                fields=["run", "response", "criterion_version", "epoch"],
                condition=Q(turn__isnull=True),
                name="judge_verdict_once_per_run",
            ),
            models.UniqueConstraint(
                fields=["run", "response", "criterion_version", "epoch", "turn"],
                condition=Q(turn__isnull=False),
                name="judge_verdict_once_per_turn",
            ),
            models.CheckConstraint(
                condition=Q(level__isnull=True) | Q(verdict__isnull=True),
                name="judge_verdict_level_or_verdict",
            ),
            models.CheckConstraint(
                condition=Q(pass_probability__isnull=True)
                | Q(pass_probability__gte=0, pass_probability__lte=1),
                name="judge_verdict_probability_in_0_1",
            ),
        ]

    def __str__(self) -> str:
        verdict = {True: "pass", False: "fail", None: "unparseable"}[self.verdict]
        if self.level is not None:
            verdict = f"level {self.level}"
        return f"{self.criterion_version}: {verdict}"


class JudgeRating(models.Model):
    """The judge's 1-5 score for one response on one rating question (e.g. authenticity).

    `question` is the question's key, not a link to a study's LikertItem: a judge run is made
    independently of any study, and a study compares it with its own LikertItem of that key."""

    SCALE = range(1, 6)

    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("run")
    )
    response = models.ForeignKey(
        Response, on_delete=models.PROTECT, related_name="+", verbose_name=_("response")
    )
    question = models.SlugField(max_length=50, verbose_name=_("question"))
    epoch = models.PositiveIntegerField(default=1, verbose_name=_("epoch"))
    value = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(5)], verbose_name=_("value")
    )
    rationale = models.TextField(blank=True, verbose_name=_("rationale"))

    class Meta:
        verbose_name = _("judge rating")
        verbose_name_plural = _("judge ratings")
        ordering = ["run", "response", "question", "epoch"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "response", "question", "epoch"],
                name="judge_rating_once_per_run",
            ),
            models.CheckConstraint(
                condition=Q(value__gte=1, value__lte=5), name="judge_rating_1_to_5"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.question}: {self.value}"


class TriageResolution(models.Model):
    """A maintainer's reading of one unit where a judge run disagreed with the experts.

    "Judge error" is a note on the prompt version the run sent (`prompt`; on the run alone when
    it was imported without one); "criterion ambiguous" links the draft of the criterion's next
    version it opened (`draft`); "experts were wrong" sent the unit to adjudication."""

    class Kind(models.TextChoices):
        AMBIGUOUS = "ambiguous", _("The criterion is ambiguous")
        JUDGE_ERROR = "judge_error", _("Judge error")
        EXPERTS_WRONG = "experts_wrong", _("The experts were wrong")

    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, related_name="resolutions", verbose_name=_("run")
    )
    prompt = models.ForeignKey(
        PromptVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="notes",
        verbose_name=_("prompt"),
    )
    response = models.ForeignKey(
        Response, on_delete=models.PROTECT, related_name="+", verbose_name=_("response")
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("criterion version"),
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    draft = models.ForeignKey(
        CriterionVersion,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The draft of the criterion's next version this resolution opened."),
        verbose_name=_("draft"),
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("triage resolution")
        verbose_name_plural = _("triage resolutions")
        ordering = ["run", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "response", "criterion_version"], name="triage_resolved_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.criterion_version} in {self.run}: {self.get_kind_display()}"
