"""The judge's prompts: a template by name, its text in versions a run points at."""

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.prompting import AnswerStyle
from core.refusals import Conflict


class PromptTemplate(models.Model):
    """A judge prompt, by name. Its text lives in versions: editing it makes a new version, so
    a run always points at the exact text it sent."""

    name = models.SlugField(max_length=60, unique=True, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("prompt template")
        verbose_name_plural = _("prompt templates")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and self.is_used():
            stored = PromptTemplate.objects.filter(pk=self.pk).values_list("name", flat=True)
            if stored.first() not in (None, self.name):
                raise PromptFrozen(
                    gettext("A run used a version of prompt '%(name)s': it keeps its name.")
                    % {"name": stored.first()}
                )
        super().save(*args, **kwargs)

    def is_used(self) -> bool:
        """A run sent one of its versions: its name is part of their `name@number`."""
        return PromptVersion.objects.filter(template=self, runs__isnull=False).exists()


class PromptFrozen(Conflict):
    """A prompt version a run used keeps its text and what describes it: a change is a new
    version (`judging.services.save_version`)."""


class PromptVersion(models.Model):
    """One text of a prompt template, never edited once saved (see `core.prompting` for the
    slots it may use and how the judge's answer is read)."""

    class Style(models.TextChoices):
        BINARY = AnswerStyle.BINARY.value, _("Binary: true or false")
        CRITIQUE = AnswerStyle.CRITIQUE.value, _("Critique, then the verdict")

    template = models.ForeignKey(
        PromptTemplate,
        on_delete=models.CASCADE,
        related_name="versions",
        verbose_name=_("template"),
    )
    number = models.PositiveIntegerField(verbose_name=_("number"))
    text = models.TextField(verbose_name=_("text"))
    style = models.CharField(
        max_length=16,
        choices=Style.choices,
        default=Style.BINARY,
        help_text=_(
            "Binary: the answer is true or false. Critique: a critique, then the verdict "
            "alone on its last line."
        ),
        verbose_name=_("style"),
    )
    note = models.TextField(
        blank=True, help_text=_("What changed, and why."), verbose_name=_("note")
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

    class Meta:
        verbose_name = _("prompt version")
        verbose_name_plural = _("prompt versions")
        ordering = ["template", "number"]
        constraints = [
            models.UniqueConstraint(fields=["template", "number"], name="prompt_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.template.name}@{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The one guard behind every path (admin, shell, a future page): the services only
        # ever create versions, so only an edit of a stored row reaches it.
        if self.pk is not None and self.is_used():
            stored = PromptVersion.objects.filter(pk=self.pk).values(*FROZEN_FIELDS).first()
            mine = {field: getattr(self, field) for field in FROZEN_FIELDS}
            if stored is not None and stored != mine:
                raise PromptFrozen(
                    gettext(
                        "A run used prompt %(version)s: it is frozen. Save the change as a "
                        "new version."
                    )
                    % {"version": str(self)}
                )
        super().save(*args, **kwargs)

    def is_used(self) -> bool:
        """A run sent this text: it is frozen (`FROZEN_FIELDS`), for every way of editing."""
        return self.pk is not None and self.runs.exists()


# What a run's prompt version keeps once the run used it (all of it but its creation stamp).
FROZEN_FIELDS = ("template_id", "number", "text", "style", "note", "created_by_id")
