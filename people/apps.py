from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PeopleConfig(AppConfig):
    name = "people"
    verbose_name = _("People")

    def ready(self) -> None:
        # Single sign-on (accounts, below this app) gives the role a provider's claim names
        # through this app's services: the same rules and history as an admin's change.
        from accounts.sso import set_roles_with
        from people.services import set_role_from_sign_on

        set_roles_with(set_role_from_sign_on)
        # A person's history (accounts.User's events) in the reader's language: the changes
        # that are no field of the account, a role by its label, the comments of the services.
        from accounts.models import User
        from accounts.roles import ROLE_LABELS, Role
        from audit import history
        from people.services import HISTORY_MESSAGES

        def role_label(value: str) -> str:
            return str(ROLE_LABELS[Role(value)]) if value in Role else value

        history.register(
            User,
            labels={"role": _("role"), "expertise": _("expertise")},
            values={"role": role_label},
            messages=HISTORY_MESSAGES,
        )
