from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _sync_roles_after_migrate(sender: AppConfig, **kwargs: object) -> None:
    from accounts.services import sync_roles

    sync_roles()


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts and roles")

    def ready(self) -> None:
        import l2annot.checks  # noqa: F401  (registers the database checks)

        # Permissions are created by Django's own post_migrate handler; groups follow the role table
        # right after, the same way, so a fresh database always has every role.
        post_migrate.connect(_sync_roles_after_migrate, sender=self)
