"""Writing judge prompts and configurations. A prompt's text is never edited in place: saving
a changed text makes the template's next version, so every run keeps the text it sent."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext

from accounts.models import User
from audit.models import AuditEvent
from audit.services import record, record_creation
from core.prompting import AnswerStyle, template_problems
from judging.models import JudgeConfig, JudgeRun, PromptTemplate, PromptVersion
from judging.providers import check_model
from l2annot.shown import message_text

_VERSION_FIELDS = ("template", "number", "style", "text", "note")


def prompt_too_long(text: str) -> str | None:
    """Why `text` is too long to be a prompt (settings.JUDGE_PROMPT_MAX_CHARS), or None."""
    most = settings.JUDGE_PROMPT_MAX_CHARS
    if len(text) <= most:
        return None
    return gettext("A prompt is at most %(most)s characters long; this one has %(length)s.") % {
        "most": f"{most:,}",
        "length": f"{len(text):,}",
    }


def check_prompt_text(text: str) -> None:
    """Refuse a text a judge could not be run with (too long, unknown slots, no response or
    criterion)."""
    if (too_long := prompt_too_long(text)) is not None:
        raise ValidationError({"text": [too_long]})
    problems = template_problems(text)
    if problems:
        raise ValidationError({"text": [message_text(problem) for problem in problems]})


@transaction.atomic
def create_template(
    name: str,
    text: str,
    *,
    style: str = AnswerStyle.BINARY,
    description: str = "",
    note: str = "First version.",
    by: User | None,
) -> PromptVersion:
    """A new prompt template with its first version."""
    check_prompt_text(text)
    if PromptTemplate.objects.filter(name=name).exists():
        raise ValidationError(
            {"name": gettext("There is already a prompt named '%(name)s'.") % {"name": name}}
        )
    template = PromptTemplate.objects.create(name=name, description=description)
    record_creation(template, ("name", "description"), by)
    return save_version(template, text, style=style, note=note, by=by)


@transaction.atomic
def save_version(
    template: PromptTemplate, text: str, *, style: str, note: str = "", by: User | None
) -> PromptVersion:
    """The template's version with this text and style: the latest one when nothing changed,
    else a new version numbered after the last."""
    check_prompt_text(text)
    AnswerStyle(style)
    locked = PromptTemplate.objects.select_for_update(of=("self",)).get(pk=template.pk)
    latest = locked.versions.order_by("-number").first()
    if latest is not None and (latest.text, latest.style) == (text, style):
        return latest
    number = (locked.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = PromptVersion.objects.create(
        template=locked, number=number, text=text, style=style, note=note, created_by=by
    )
    record_creation(version, _VERSION_FIELDS, by)
    return version


def save_prompt(
    name: str,
    text: str,
    *,
    style: str = AnswerStyle.BINARY,
    note: str = "",
    description: str = "",
    by: User | None,
) -> tuple[PromptVersion, bool]:
    """The prompt `name`'s version with this text and style, and whether it was made now: the
    prompt is made when new (with `description`), its latest version is kept when equal, else
    its next version is saved (the API's create, as the page's "new prompt" and editor)."""
    template = PromptTemplate.objects.filter(name=name).first()
    if template is None:
        return (
            create_template(
                name,
                text,
                style=style,
                description=description,
                note=note or "First version.",
                by=by,
            ),
            True,
        )
    latest = template.versions.order_by("-number").values_list("pk", flat=True).first()
    version = save_version(template, text, style=style, note=note, by=by)
    return version, version.pk != latest


def find_prompt(reference: str) -> PromptVersion:
    """The prompt version named `name` (its latest version) or `name@number`."""
    name, _, number = reference.partition("@")
    versions = PromptVersion.objects.select_related("template").filter(template__name=name)
    if number:
        if not number.isdigit():
            raise ValidationError(
                gettext("'%(reference)s': the version after @ is a number.")
                % {"reference": reference}
            )
        versions = versions.filter(number=int(number))
    version = versions.order_by("-number").first()
    if version is None:
        known = ", ".join(PromptTemplate.objects.values_list("name", flat=True))
        raise ValidationError(
            gettext("No prompt version '%(reference)s' (prompts: %(known)s).")
            % {"reference": reference, "known": known or gettext("none")}
        )
    return version


def default_prompt() -> PromptVersion:
    """The latest version of the shipped reference-guided prompt (else of any prompt)."""
    try:
        return find_prompt("reference-guided")
    except ValidationError:
        version = PromptVersion.objects.select_related("template").order_by("-pk").first()
        if version is None:
            raise ValidationError(gettext("There is no prompt: write one first.")) from None
        return version


CONFIG_FIELDS = (
    "model",
    "prompt",
    "model_family",
    "temperature",
    "epochs",
    "max_connections",
    "parse_retries",
    "retry_temperature",
    "ask_probability",
)


def config_values(config: JudgeConfig) -> dict[str, Any]:
    """What a configuration names, as `save_config` takes it."""
    return {field: getattr(config, field) for field in CONFIG_FIELDS}


def save_config(**values: Any) -> JudgeConfig:
    """The judge configuration with these values (`saved_config`'s, without whether it was
    made now)."""
    return saved_config(**values)[0]


@transaction.atomic
def saved_config(
    *,
    name: str = "",
    model: str,
    prompt: PromptVersion,
    model_family: str = "",
    temperature: float = 0.0,
    epochs: int = 1,
    max_connections: int = 10,
    parse_retries: int = 3,
    retry_temperature: float = 0.2,
    ask_probability: bool = False,
    by: User | None,
) -> tuple[JudgeConfig, bool]:
    """The judge configuration with these values, saved to be reused by name, and whether it
    was made now.

    With a `name`: the configuration of that name, made when new; a name that already holds
    other values is refused (a configuration never changes under the runs that used it: save
    the new values under a new name). Without one: the configuration holding exactly these
    values, made and named after the model and prompt when first asked for."""
    check_model(model)
    if min(epochs, max_connections) < 1 or parse_retries < 0:
        raise ValidationError(gettext("Epochs and connections are at least 1, retries at least 0."))
    values: dict[str, Any] = {
        "model": model,
        "prompt": prompt,
        "model_family": model_family.strip(),
        "temperature": temperature,
        "epochs": epochs,
        "max_connections": max_connections,
        "parse_retries": parse_retries,
        "retry_temperature": retry_temperature,
        "ask_probability": ask_probability,
    }
    if name:
        found = JudgeConfig.objects.filter(name=name).first()
        if found is not None:
            if config_values(found) != values:
                raise ValidationError(
                    {
                        "name": gettext(
                            "The configuration '%(name)s' holds other values: choose it "
                            "unchanged, or save these under a new name."
                        )
                        % {"name": name}
                    }
                )
            return found, False
    else:
        found = JudgeConfig.objects.filter(**values).order_by("pk").first()
        if found is not None:
            return found, False
        default = f"{model}--{prompt.template.name}-{prompt.number}"
        name = _free_name("".join(c if c.isalnum() or c in "-_" else "-" for c in default)[:60])
    config = JudgeConfig.objects.create(name=name, **values)
    record_creation(config, ("name", *CONFIG_FIELDS), by)
    return config, True


def _free_name(slug: str) -> str:
    name, n = slug, 1
    while JudgeConfig.objects.filter(name=name).exists():
        n += 1
        name = f"{slug[:55]}-{n}"
    return name


FAMILY_MAX_LENGTH = 200


@transaction.atomic
def set_run_family(run: JudgeRun, family: str, *, by: User | None) -> JudgeRun:
    """Name the model family of an imported run, which self-preference compares with the
    responses' families. A run made here takes its configuration's family and keeps it."""
    if run.config_id is not None:
        raise ValidationError(
            {
                "model_family": gettext(
                    "This run's family comes from its judge configuration "
                    "'%(config)s': save a configuration with another family to change it."
                )
                % {"config": run.config}
            }
        )
    family = family.strip()
    if len(family) > FAMILY_MAX_LENGTH:
        raise ValidationError(
            {"model_family": gettext("A model family is at most 200 characters.")}
        )
    locked = JudgeRun.objects.select_for_update(of=("self",)).get(pk=run.pk)
    if locked.model_family != family:
        record(locked, AuditEvent.Kind.UPDATED, by, {"model_family": [locked.model_family, family]})
        locked.model_family = family
        locked.save(update_fields=["model_family"])
    return locked
