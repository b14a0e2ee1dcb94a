"""What an LLM judge said about model responses, kept apart from the experts' grades so the two
can be compared (judge calibration) without one ever overwriting the other."""

from django.db import models

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
