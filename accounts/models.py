import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.roles import ACTION_LABELS


class User(AbstractUser):
    """The project's own user model, so profile fields can grow without a swap later."""

    display_name = models.CharField(max_length=150, blank=True, verbose_name=_("display name"))
    # The interface language this person chose; blank: their browser's (accounts.middleware).
    language = models.CharField(
        _("interface language"), max_length=10, blank=True, choices=settings.LANGUAGES
    )

    def __str__(self) -> str:
        return self.display_name or self.get_full_name() or self.username


class Capability(models.Model):
    """Holds no rows: it exists so that every Action is a real Django permission
    (`accounts.<action>`) that groups carry and `user.has_perm` checks."""

    class Meta:
        verbose_name = _("capability")
        verbose_name_plural = _("capabilities")
        managed = False
        default_permissions = ()
        permissions = [(action.value, label) for action, label in ACTION_LABELS.items()]

    def __str__(self) -> str:
        return "capability"


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def active(self) -> "ApiTokenQuerySet":
        return self.filter(revoked__isnull=True)


class ApiToken(models.Model):
    """A key a person gives to a script so it can call the API as them, with their role.

    Only a SHA-256 of the key is stored: the key is shown once, when the token is created, and a
    leaked database does not leak working keys. Keys are long random strings, so a plain hash (no
    salt, no slow hashing) is enough and lets a request find its token with one indexed lookup.
    """

    KEY_PREFIX = "l2a_"  # makes a pasted key easy to recognise (and to scan for in leaks)

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("user")
    )
    name = models.CharField(
        max_length=100,
        help_text=_("What the token is for, e.g. nightly export."),
        verbose_name=_("name"),
    )
    key_hash = models.CharField(
        max_length=64, unique=True, editable=False, verbose_name=_("key hash")
    )
    hint = models.CharField(
        max_length=12,
        editable=False,
        help_text=_("The key's first characters."),
        verbose_name=_("hint"),
    )
    created = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    last_used = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("last used at")
    )
    revoked = models.DateTimeField(null=True, blank=True, editable=False, verbose_name=_("revoked"))

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked is None

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def issue(cls, user: User, name: str) -> tuple["ApiToken", str]:
        """Create a token for `user`; returns it with the key, which is never stored."""
        key = cls.KEY_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, key_hash=cls.hash_key(key), hint=key[: len(cls.KEY_PREFIX) + 4]
        )
        return token, key

    @classmethod
    def find_active(cls, key: str) -> "ApiToken | None":
        return (
            cls.objects.active().select_related("user").filter(key_hash=cls.hash_key(key)).first()
        )

    def revoke(self) -> None:
        if self.revoked is None:
            self.revoked = timezone.now()
            self.save(update_fields=["revoked"])

    def touch(self, every: timedelta = timedelta(minutes=1)) -> None:
        """Record use, at most once per `every`, so a busy script does not write on each call."""
        now = timezone.now()
        if self.last_used is None or now - self.last_used >= every:
            ApiToken.objects.filter(pk=self.pk).update(last_used=now)
            self.last_used = now
