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
