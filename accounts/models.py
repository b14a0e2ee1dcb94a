from django.contrib.auth.models import AbstractUser
from django.db import models

from accounts.roles import ACTION_LABELS


class User(AbstractUser):
    """The project's own user model, so profile fields can grow without a swap later."""

    display_name = models.CharField(max_length=150, blank=True)

    def __str__(self) -> str:
        return self.display_name or self.get_full_name() or self.username


class Capability(models.Model):
    """Holds no rows: it exists so that every Action is a real Django permission
    (`accounts.<action>`) that groups carry and `user.has_perm` checks."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [(action.value, label) for action, label in ACTION_LABELS.items()]

    def __str__(self) -> str:
        return "capability"
