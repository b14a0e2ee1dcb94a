"""A judge's runs: the configuration a run starts from, the prices its cost is counted at,
the run with its progress and usage, and the batches it sends to a provider's batch API."""

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Avg, Count
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.costs import Price, cost, rounded
from judging.models.prompts import PromptVersion
from judging.providers import check_model


class JudgeConfig(models.Model):
    """A judge as L2 Annot runs it: an Inspect AI model with a prompt version and parameters.

    `model` is Inspect's model string (`anthropic/claude-sonnet-4-6`, `openai/gpt-4.1`,
    `openai-api/<service>/<model>` for any OpenAI-compatible server); its API key comes from the
    environment by Inspect's own variable names and is never stored here. An answer that is not
    `true`/`false` is asked again with a corrective message up to `parse_retries` times at
    `retry_temperature` (as L2-Bench's scorer does: 3 times at 0.2)."""

    name = models.SlugField(max_length=60, unique=True, verbose_name=_("name"))
    model = models.CharField(
        max_length=200, help_text=_("Inspect AI model string."), verbose_name=_("model")
    )
    prompt = models.ForeignKey(
        PromptVersion, on_delete=models.PROTECT, related_name="configs", verbose_name=_("prompt")
    )
    model_family = models.CharField(
        max_length=200,
        blank=True,
        help_text=_(
            "The judge's vendor or family, compared with the responses' families to "
            "measure self-preference."
        ),
        verbose_name=_("model family"),
    )
    temperature = models.FloatField(default=0.0, verbose_name=_("temperature"))
    epochs = models.PositiveSmallIntegerField(default=1, verbose_name=_("epochs"))
    max_connections = models.PositiveSmallIntegerField(
        default=10, verbose_name=_("max connections")
    )
    parse_retries = models.PositiveSmallIntegerField(default=3, verbose_name=_("parse retries"))
    retry_temperature = models.FloatField(default=0.2, verbose_name=_("retry temperature"))
    ask_probability = models.BooleanField(
        default=False,
        help_text=_(
            "Ask the judge, after its prompt, for its probability that the response meets each "
            "binary criterion, stored with its verdict: a study sampled for the judge's "
            "scores draws by it."
        ),
        verbose_name=_("ask for a probability"),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("judge configuration")
        verbose_name_plural = _("judge configurations")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        check_model(self.model)  # the admin's form too: only the providers the server allows

    def parameters(self) -> dict[str, float | int]:
        return {
            "temperature": self.temperature,
            "epochs": self.epochs,
            "max_connections": self.max_connections,
            "parse_retries": self.parse_retries,
            "retry_temperature": self.retry_temperature,
        } | ({"ask_probability": True} if self.ask_probability else {})


class ModelPriceQuerySet(models.QuerySet["ModelPrice"]):
    def for_model(self, model: str) -> "ModelPrice | None":
        """The price of Inspect model `model`: the row naming it, or the longest row that
        starts it (`openai/gpt-4.1` prices `openai/gpt-4.1-2025-04-14`); None when no row
        does. Prices are few: read them all, match here."""
        matching = [row for row in self if model.startswith(row.model)]
        return max(matching, key=lambda row: len(row.model), default=None)


class ModelPrice(models.Model):
    """What a judge model costs, as an admin keeps it from the provider's price list (none is
    shipped: providers change their prices). A run copies the price it started with, so a
    later edit never rewrites what a finished run cost."""

    model = models.CharField(
        max_length=200,
        unique=True,
        help_text=_(
            "An Inspect AI model string (openai/gpt-4.1), or the start of some "
            "(openai/gpt-4.1 also prices openai/gpt-4.1-mini unless that has its own row: "
            "the longest match wins)."
        ),
        verbose_name=_("model"),
    )
    input_per_million = models.DecimalField(
        max_digits=12,
        decimal_places=4,
        validators=[MinValueValidator(0)],
        help_text=_("Price of a million input tokens."),
        verbose_name=_("input price per million tokens"),
    )
    output_per_million = models.DecimalField(
        max_digits=12,
        decimal_places=4,
        validators=[MinValueValidator(0)],
        help_text=_("Price of a million output tokens."),
        verbose_name=_("output price per million tokens"),
    )
    batch_discount = models.DecimalField(
        max_digits=5,
        decimal_places=4,
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("The fraction off through the provider's batch API: 0.5 is half price."),
        verbose_name=_("batch discount"),
    )
    currency = models.CharField(
        max_length=3, default="USD", help_text=_("ISO 4217 code."), verbose_name=_("currency")
    )
    source = models.CharField(
        max_length=500,
        blank=True,
        help_text=_("Where the price comes from (the provider's pricing page) and when."),
        verbose_name=_("source"),
    )
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    objects = ModelPriceQuerySet.as_manager()

    class Meta:
        verbose_name = _("model price")
        verbose_name_plural = _("model prices")
        ordering = ["model"]

    def __str__(self) -> str:
        return self.model

    @property
    def price(self) -> Price:
        return Price(
            self.input_per_million, self.output_per_million, self.currency, self.batch_discount
        )


@dataclass(frozen=True)
class StatedProbabilities:
    """Of a run's verdicts on whole responses, how many came with the probability of a pass
    that the judge stated, and the mean of those probabilities (None when none did)."""

    verdicts: int
    stated: int
    mean: float | None


class JudgeRun(models.Model):
    """One judging run: a judge model with a prompt version. Verdicts of a re-imported run
    update in place; another run (or prompt) is a separate set of verdicts.

    A run made by L2 Annot points at the prompt version it sent (`prompt`) and keeps its
    parameters, progress, token usage and `.eval` log; an imported run knows its prompt only by
    the label the file gave (`prompt_version`)."""

    class Status(models.TextChoices):
        IMPORTED = "imported", _("Imported")
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Finished")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    judge_model = models.CharField(max_length=200, verbose_name=_("judge model"))
    # How every page, export and the API name the run (`display_name`): made here, its
    # configuration's name and its version among that configuration's runs on the study.
    name = models.CharField(
        max_length=120,
        blank=True,
        help_text=_(
            "The run's name: its judge configuration's name and version (v2 is the "
            "configuration's second run on the study). Empty for an imported run, named by its "
            "model and prompt."
        ),
        verbose_name=_("name"),
    )
    prompt_version = models.CharField(max_length=100, blank=True, verbose_name=_("prompt version"))
    run_id = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("The run's id in its source."),
        verbose_name=_("run id"),
    )
    started = models.DateTimeField(null=True, blank=True, verbose_name=_("started"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    prompt = models.ForeignKey(
        PromptVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="runs",
        verbose_name=_("prompt"),
    )
    config = models.ForeignKey(
        JudgeConfig,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="runs",
        verbose_name=_("judge configuration"),
    )
    model_family = models.CharField(
        max_length=200,
        blank=True,
        help_text=_(
            "The judge's vendor or family, which self-preference compares with the "
            "responses' families: its configuration's for a run made here, given on import (or "
            "here) for an imported one."
        ),
        verbose_name=_("model family"),
    )
    parameters = models.JSONField(default=dict, blank=True, verbose_name=_("parameters"))
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.IMPORTED, verbose_name=_("status")
    )
    calls_total = models.PositiveIntegerField(default=0, verbose_name=_("calls total"))
    calls_done = models.PositiveIntegerField(default=0, verbose_name=_("calls done"))
    errors = models.PositiveIntegerField(
        default=0, help_text=_("Calls that ended in an error."), verbose_name=_("errors")
    )
    unparseable = models.PositiveIntegerField(
        default=0,
        help_text=_("Answers still not true/false after the retries."),
        verbose_name=_("unparseable"),
    )
    input_tokens = models.PositiveBigIntegerField(default=0, verbose_name=_("input tokens"))
    output_tokens = models.PositiveBigIntegerField(default=0, verbose_name=_("output tokens"))
    total_tokens = models.PositiveBigIntegerField(default=0, verbose_name=_("total tokens"))
    # The price the run started with (ModelPrice, copied: a later edit of the price leaves a
    # run's cost alone) and its estimate then (core.costs.estimate); empty when no price was
    # known, and for an imported run.
    price_input_per_million = models.DecimalField(
        max_digits=12,
        decimal_places=4,
        null=True,
        blank=True,
        verbose_name=_("input price per million tokens"),
    )
    price_output_per_million = models.DecimalField(
        max_digits=12,
        decimal_places=4,
        null=True,
        blank=True,
        verbose_name=_("output price per million tokens"),
    )
    currency = models.CharField(max_length=3, blank=True, verbose_name=_("currency"))
    estimated_input_tokens = models.PositiveBigIntegerField(
        default=0, verbose_name=_("estimated input tokens")
    )
    estimated_output_tokens = models.PositiveBigIntegerField(
        default=0, verbose_name=_("estimated output tokens")
    )
    estimated_cost = models.DecimalField(
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        verbose_name=_("estimated cost"),
    )
    finished = models.DateTimeField(null=True, blank=True, verbose_name=_("finished"))
    # The background job of a run made here (none for an imported run): who runs it and
    # whether that worker is alive (jobs.models.Job).
    job = models.OneToOneField(
        "jobs.Job",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="judge_run",
        verbose_name=_("background job"),
    )
    duration = models.FloatField(
        null=True, blank=True, help_text=_("Seconds."), verbose_name=_("duration")
    )
    log_path = models.CharField(
        max_length=500, blank=True, help_text=_("The kept .eval log."), verbose_name=_("log path")
    )
    problems = models.JSONField(default=list, blank=True, verbose_name=_("problems"))

    class Meta:
        verbose_name = _("judge run")
        verbose_name_plural = _("judge runs")
        ordering = ["-created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["judge_model", "prompt_version", "run_id"], name="judge_run_unique"
            )
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        """The run's one name, wherever a run is named: its `name`, or for an imported run its
        model and prompt, with the start of its id in its source (what tells two imports of
        one judge apart)."""
        if self.name:
            return self.name
        parts = [self.judge_model, self.prompt_version, self.run_id[:8]]
        return " · ".join(part for part in parts if part)

    @property
    def sends_batches(self) -> bool:
        """Its calls go through the provider's batch API (judging.batching)."""
        return bool(self.parameters.get("batch"))

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    # The words a page shows for the keys of `parameters` (a key not listed is shown spelt
    # out: "top_p" as "Top p").
    PARAMETER_LABELS = {
        "temperature": _("Temperature"),
        "max_tokens": _("Maximum tokens"),
        "epochs": _("Epochs"),
        "limit": _("Limit"),
        "max_connections": _("Maximum connections"),
        "parse_retries": _("Retries of an unreadable answer"),
        "retry_temperature": _("Retry temperature"),
        "ask_probability": _("Asked for its probability"),
        "batch": _("Batch API"),
    }

    def labelled_parameters(self) -> list[tuple[str, object]]:
        """The run's parameters as a page names them, (label, value), the study left out
        (the page is the study's)."""
        return [
            (str(self.PARAMETER_LABELS.get(key, key.replace("_", " ").capitalize())), value)
            for key, value in self.parameters.items()
            if key != "study"
        ]

    # Shown, never stored: a run still "running" whose job has stopped giving signs of life,
    # and a run cancelled while it ran whose worker has not ended it yet.
    STALLED = "stalled"
    STALLED_LABEL = _("Stopped (its worker gave no sign of life)")
    STOPPING = "stopping"
    STOPPING_LABEL = _("Stopping (the calls under way end first)")

    def worker_alive(self, now: datetime) -> bool:
        """Whether the worker running it still runs (`Job.is_alive`, the rule of every job)."""
        return self.job is not None and self.job.is_alive(now)

    @property
    def heartbeat(self) -> datetime | None:
        """The last sign of life of the job running it; None for a run not made here."""
        return self.job.heartbeat_at if self.job is not None else None

    def stated_probabilities(self) -> StatedProbabilities:
        """One query."""
        found = self.verdicts.per_response().aggregate(
            verdicts=Count("pk"), stated=Count("pass_probability"), mean=Avg("pass_probability")
        )
        return StatedProbabilities(found["verdicts"], found["stated"], found["mean"])

    def is_stale(self, now: datetime) -> bool:
        """Running, but its worker is gone: killed, or silent for longer than the lease."""
        return self.status == self.Status.RUNNING and not self.worker_alive(now)

    def is_stopping(self, now: datetime) -> bool:
        """Cancelled while it ran, and its worker has not ended it yet (nor died: a worker
        gone and it is taken for stopped)."""
        return (
            self.status == self.Status.CANCELLED
            and self.finished is None
            and self.worker_alive(now)
        )

    @property
    def stopping(self) -> bool:
        return self.is_stopping(timezone.now())

    @property
    def live_status(self) -> str:
        """The status as the pages and the API show it: `stalled` for a running run whose
        worker died (a killed worker cannot say so itself), `stopping` for a cancelled one
        whose worker has not ended it yet, the stored status otherwise."""
        now = timezone.now()
        if self.is_stale(now):
            return self.STALLED
        return self.STOPPING if self.is_stopping(now) else self.status

    @property
    def live_status_label(self) -> str:
        shown = self.live_status
        if shown == self.STALLED:
            return str(self.STALLED_LABEL)
        if shown == self.STOPPING:
            return str(self.STOPPING_LABEL)
        return str(self.get_status_display())

    def elapsed(self, now: datetime) -> float | None:
        """Seconds the run took, or has taken so far; None before it starts."""
        if self.duration is not None:
            return self.duration
        return (now - self.started).total_seconds() if self.started else None

    @property
    def price(self) -> Price | None:
        """The price the run was started with; None when none was known."""
        if self.price_input_per_million is None or self.price_output_per_million is None:
            return None
        return Price(self.price_input_per_million, self.price_output_per_million, self.currency)

    @property
    def cost(self) -> Decimal | None:
        """What the tokens used so far cost at the run's price, to the cent; None without a
        price. The tokens are the calls made (calls answered from the cache are free), over
        every attempt of the run."""
        price = self.price
        if price is None:
            return None
        return rounded(cost(self.input_tokens, self.output_tokens, price))

    @property
    def cost_per_unit(self) -> Decimal | None:
        """What one judged unit (a response and criterion, every epoch of it) cost, to a
        hundredth of a cent; None without a price or before a call is done."""
        price = self.price
        if price is None or not self.calls_done:
            return None
        units = max(self.calls_done // max(int(self.parameters.get("epochs") or 1), 1), 1)
        spent = cost(self.input_tokens, self.output_tokens, price)
        return (spent / units).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)

    def remaining(self, now: datetime) -> float | None:
        """Seconds left at the pace so far, while it runs and once a call is done."""
        elapsed = self.elapsed(now)
        if self.status != self.Status.RUNNING or not self.calls_done or elapsed is None:
            return None
        return elapsed / self.calls_done * max(self.calls_total - self.calls_done, 0)


class JudgeBatch(models.Model):
    """A batch of a run's calls sent to its provider's batch API (a run with `batch` among its
    parameters): what the provider last said of it, and, to resume the run without paying for
    its calls twice, the requests in it (judging.batching)."""

    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, related_name="batches", verbose_name=_("run")
    )
    batch_id = models.CharField(
        max_length=200, help_text=_("The provider's id of the batch."), verbose_name=_("batch id")
    )
    # [[fingerprint, the provider's id of the request], ...]: what a resumed run's calls are
    # matched with (judging.batching.fingerprint).
    requests = models.JSONField(default=list, blank=True, verbose_name=_("requests"))
    size = models.PositiveIntegerField(default=0, verbose_name=_("requests in the batch"))
    completed = models.PositiveIntegerField(default=0, verbose_name=_("completed requests"))
    failed = models.PositiveIntegerField(default=0, verbose_name=_("failed requests"))
    submitted_at = models.DateTimeField(verbose_name=_("submitted at"))
    checked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last checked at"))
    ended_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When its answers came (or it failed): empty while it is pending."),
        verbose_name=_("ended at"),
    )

    class Meta:
        verbose_name = _("judge batch")
        verbose_name_plural = _("judge batches")
        ordering = ["run", "submitted_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "batch_id"], name="judge_batch_once_per_run")
        ]

    def __str__(self) -> str:
        return self.batch_id

    @property
    def pending(self) -> int:
        """Requests not yet answered, as the provider last counted."""
        return max(self.size - self.completed - self.failed, 0)
