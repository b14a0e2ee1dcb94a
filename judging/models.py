"""What an LLM judge said about model responses, kept apart from the experts' grades so the two
can be compared (judge calibration) without one ever overwriting the other."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from rubrics.models import CriterionVersion, Response


class JudgeRun(models.Model):
    """One judging run: a judge model with a prompt version. Verdicts of a re-imported run
    update in place; another run (or prompt) is a separate set of verdicts."""

    judge_model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=100, blank=True)
    run_id = models.CharField(max_length=200, blank=True, help_text="The run's id in its source.")
    started = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["judge_model", "prompt_version", "run_id"], name="judge_run_unique"
            )
        ]

    def __str__(self) -> str:
        parts = [self.judge_model, self.prompt_version, self.run_id]
        return " / ".join(part for part in parts if part)


class JudgeVerdict(models.Model):
    """The judge's binary verdict on one criterion (at the version it judged) for one response."""

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="verdicts")
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="+")
    criterion_version = models.ForeignKey(
        CriterionVersion, on_delete=models.PROTECT, related_name="+"
    )
    epoch = models.PositiveIntegerField(default=1)
    verdict = models.BooleanField()
    rationale = models.TextField(blank=True)

    class Meta:
        ordering = ["run", "response", "criterion_version", "epoch"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "response", "criterion_version", "epoch"],
                name="judge_verdict_once_per_run",
            )
        ]

    def __str__(self) -> str:
        return f"{self.criterion_version}: {'pass' if self.verdict else 'fail'}"


class JudgeRating(models.Model):
    """The judge's 1-5 score for one response on one rating question (e.g. authenticity).

    `question` is the question's key, not a link to a study's LikertItem: a judge run is made
    independently of any study, and a study compares it with its own LikertItem of that key."""

    SCALE = range(1, 6)

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="ratings")
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="+")
    question = models.SlugField(max_length=50)
    epoch = models.PositiveIntegerField(default=1)
    value = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(5)]
    )
    rationale = models.TextField(blank=True)

    class Meta:
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
