import importlib

from django.apps import AppConfig, apps
from django.db import connections
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _

# The shipped prompts' texts live in the data migration that first wrote them.
SHIPPED_PROMPTS = "judging.migrations.0004_shipped_prompts"


def shipped_prompt_names() -> list[str]:
    """The names of the prompt templates every database gets from `migrate`."""
    return [name for name, *_ in importlib.import_module(SHIPPED_PROMPTS).SHIPPED]


def _ship_prompts_after_migrate(
    sender: AppConfig, using: str = "default", **kwargs: object
) -> None:
    template = apps.get_model("judging", "PromptTemplate")
    if template._meta.db_table in connections[using].introspection.table_names():
        importlib.import_module(SHIPPED_PROMPTS).ship(apps, None)


class JudgingConfig(AppConfig):
    name = "judging"
    verbose_name = _("LLM-judge verdicts")

    def ready(self) -> None:
        # The migration ships the prompts once; a flushed database (`manage.py flush`, a
        # transactional test) gets them back after it, as the roles are (accounts.apps).
        post_migrate.connect(_ship_prompts_after_migrate, sender=self)
