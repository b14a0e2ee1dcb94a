"""Model responses to tasks: a text, or a conversation of turns, in versions.

A response is named by its task and its id in the source file (`external_id`). What graders,
the judge and studies have read is never rewritten: a change to a response something points at
(a study item, a judge verdict, a turn's grade...) is stored as its next `version`, and the
version before it is marked superseded (`rubrics.responses.save_responses`)."""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Exists, F, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from rubrics.models.tasks import Task


class ResponseQuerySet(models.QuerySet["Response"]):
    def current(self) -> "ResponseQuerySet":
        """The current version of each response (new studies and the judge's matching take
        these); a response without an id has one version only."""
        return self.filter(superseded_at__isnull=True)

    def with_versions(self) -> "ResponseQuerySet":
        """Each response annotated with `versions`, how many versions its id has had (its
        latest version number), in the same query."""
        return self.annotate(versions=versions_count())

    def count_versions(self, response: "Response") -> int:
        """How many versions `response`'s id has had (its latest version number). One query."""
        found = self.filter(pk=response.pk).annotate(n=versions_count()).values("n").first()
        return int(found["n"]) if found else response.version

    def versions_of(self, responses: "models.QuerySet[Response]") -> "ResponseQuerySet":
        """Every version of `responses` (the same task and id), the responses included."""
        same = responses.filter(task=OuterRef("task"), external_id=OuterRef("external_id"))
        return self.filter(Exists(same.exclude(external_id="")) | Q(pk__in=responses.values("pk")))


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
        help_text=_("Id in the source file: a re-import finds the response by it."),
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
    version = models.PositiveIntegerField(
        default=1,
        help_text=_(
            "Counts the changes of a response that had been graded or judged: each change "
            "made its next version, and the studies and verdicts kept the version they read."
        ),
        verbose_name=_("version"),
    )
    superseded_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When a newer version of this response replaced it; empty: current."),
        verbose_name=_("superseded at"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    objects = ResponseQuerySet.as_manager()

    class Meta:
        verbose_name = _("response")
        verbose_name_plural = _("responses")
        ordering = ["task", "model_name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "external_id", "version"],
                condition=~Q(external_id=""),
                name="response_version_unique_per_task",
                violation_error_message=_("This task already has this version of this response."),
            ),
            models.UniqueConstraint(
                fields=["task", "external_id"],
                condition=~Q(external_id="") & Q(superseded_at__isnull=True),
                name="response_one_current_version",
                violation_error_message=_("This task already has a response with this id."),
            ),
            models.CheckConstraint(
                condition=~Q(external_id="") | Q(version=1, superseded_at__isnull=True),
                name="response_without_id_has_one_version",
                violation_error_message=_("A response without an id has one version only."),
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
        return self.describe(self.model_name, self.task, self.version)

    @staticmethod
    def describe(model_name: str, task: Task, version: int = 1) -> str:
        """A response's `str`, from its model's name, its task and its version (without the
        response); the first version is not numbered."""
        if version > 1:
            return f"{model_name} on {task} (version {version})"
        return f"{model_name} on {task}"

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None

    def clean(self) -> None:
        if self.kind == self.Kind.TEXT and not self.text.strip():
            raise ValidationError({"text": _("A text response needs its text.")})
        if self.kind == self.Kind.CONVERSATION and self.text:
            raise ValidationError({"text": _("A conversation keeps its text in its turns.")})


def versions_count(path: str = "") -> Coalesce:
    """An annotation: how many versions the response at `path` (a lookup to a Response ending
    with "__", e.g. "study_item__response__"; "" for a Response itself) has had, its latest
    version number. A correlated subquery, so a list of rows costs no query more."""
    latest = (
        Response.objects.filter(
            task=OuterRef(f"{path}task"), external_id=OuterRef(f"{path}external_id")
        )
        .exclude(external_id="")
        .order_by("-version")
        .values("version")[:1]
    )
    return Coalesce(Subquery(latest), F(f"{path}version"), output_field=IntegerField())


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
