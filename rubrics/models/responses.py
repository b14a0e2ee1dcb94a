"""Model responses to tasks: a text, or a conversation of turns."""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from rubrics.models.tasks import Task


class Response(models.Model):
    class Kind(models.TextChoices):
        TEXT = "text", _("Text")
        CONVERSATION = "conversation", _("Conversation")

    task = models.ForeignKey(
        Task, on_delete=models.PROTECT, related_name="responses", verbose_name=_("task")
    )
    external_id = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("Id in the source file, so re-imports update."),
        verbose_name=_("external id"),
    )
    model_name = models.CharField(max_length=200, verbose_name=_("model name"))
    model_family = models.CharField(
        max_length=200, blank=True, help_text=_("Vendor or family."), verbose_name=_("model family")
    )
    model_version = models.CharField(max_length=200, blank=True, verbose_name=_("model version"))
    epoch = models.PositiveIntegerField(
        default=1,
        help_text=_(
            "Which repeat of the run gave this response (1 unless its file said otherwise); "
            "judge verdicts may name a response by task, model and epoch."
        ),
        verbose_name=_("epoch"),
    )
    kind = models.CharField(
        max_length=16, choices=Kind.choices, default=Kind.TEXT, verbose_name=_("kind")
    )
    text = models.TextField(blank=True, verbose_name=_("text"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("response")
        verbose_name_plural = _("responses")
        ordering = ["task", "model_name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "external_id"],
                condition=~Q(external_id=""),
                name="response_external_id_unique_per_task",
                violation_error_message=_("This task already has a response with this id."),
            ),
            models.CheckConstraint(
                condition=(Q(kind="text") & ~Q(text="")) | Q(kind="conversation", text=""),
                name="response_text_matches_kind",
                violation_error_message=_(
                    "A text response needs its text; a conversation has turns."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.describe(self.model_name, self.task)

    @staticmethod
    def describe(model_name: str, task: Task) -> str:
        """A response's `str`, from its model's name and its task (without the response)."""
        return f"{model_name} on {task}"

    def clean(self) -> None:
        if self.kind == self.Kind.TEXT and not self.text.strip():
            raise ValidationError({"text": _("A text response needs its text.")})
        if self.kind == self.Kind.CONVERSATION and self.text:
            raise ValidationError({"text": _("A conversation keeps its text in its turns.")})


class Turn(models.Model):
    class Role(models.TextChoices):
        SYSTEM = "system", _("System")
        USER = "user", _("User")
        ASSISTANT = "assistant", _("Assistant")

    response = models.ForeignKey(
        Response, on_delete=models.CASCADE, related_name="turns", verbose_name=_("response")
    )
    index = models.PositiveIntegerField(verbose_name=_("index"))
    role = models.CharField(max_length=16, choices=Role.choices, verbose_name=_("role"))
    content = models.TextField(verbose_name=_("content"))

    class Meta:
        verbose_name = _("turn")
        verbose_name_plural = _("turns")
        ordering = ["response", "index"]
        constraints = [
            models.UniqueConstraint(fields=["response", "index"], name="turn_index_unique")
        ]

    def __str__(self) -> str:
        return f"{self.response} turn {self.index} ({self.role})"
