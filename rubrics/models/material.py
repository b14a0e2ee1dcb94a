"""What a task hands the model besides its texts, in the shape a task's draft and its published
rubric versions share: resources and context values (abstract bases, no tables of their own)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from taxonomy.models import ContextValue, ContextVariable, shown_value


class AbstractResource(models.Model):
    """Material handed to the model with the task: a markdown text or an uploaded file."""

    class Kind(models.TextChoices):
        MARKDOWN = "markdown", _("Text (markdown)")
        FILE = "file", _("File")

    title = models.CharField(max_length=200, verbose_name=_("title"))
    text = models.TextField(blank=True, verbose_name=_("text"))
    file = models.FileField(upload_to="task_resources/%Y/", blank=True, verbose_name=_("file"))

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.title


class AbstractContextValue(models.Model):
    """The value of one context variable: a listed value, a text or a number, according to the
    variable's kind."""

    variable = models.ForeignKey(
        ContextVariable, on_delete=models.PROTECT, related_name="+", verbose_name=_("variable")
    )
    value = models.ForeignKey(
        ContextValue,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("value"),
    )
    text = models.TextField(blank=True, verbose_name=_("text"))
    number = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True, verbose_name=_("number")
    )

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.variable}: {self.display_value}"

    @property
    def display_value(self) -> str:
        """The value as people read it (taxonomy.models.shown_value); pages show it with the
        variable's label through templates/_context_values.html."""
        given = self.value if self.value_id is not None else self.number
        return shown_value(given if given is not None else self.text)
