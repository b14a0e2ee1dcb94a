import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.roles import ACTION_LABELS
from accounts.usernames import not_like_another, username_key


class User(AbstractUser):
    """The project's own user model, so profile fields can grow without a swap later."""

    username = models.CharField(
        _("username"),
        max_length=150,
        unique=True,
        help_text=_("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
        validators=[AbstractUser.username_validator, not_like_another],
        error_messages={"unique": _("A user with that username already exists.")},
    )
    # What the name reads as (accounts.usernames): one account per key, so no name passes for
    # another. Empty only for rows written in bulk, which bypass save().
    username_key = models.CharField(
        _("user name as read"),
        max_length=300,
        blank=True,
        default="",
        editable=False,
        help_text=_("The user name as a reader sees it: no two accounts share it."),
    )
    display_name = models.CharField(max_length=150, blank=True, verbose_name=_("display name"))
    invitation_unsent = models.BooleanField(
        _("invitation not sent"),
        default=False,
        editable=False,
        help_text=_(
            "The last email with a set-password link could not be sent (the mail server "
            "refused it or did not answer): send it again once mail works."
        ),
    )
    # The interface language this person chose; blank: their browser's (accounts.middleware).
    language = models.CharField(
        _("interface language"), max_length=10, blank=True, choices=settings.LANGUAGES
    )

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["username_key"],
                condition=~models.Q(username_key=""),
                name="user_name_reads_unlike_any_other",
                violation_error_message=_("This user name reads like another account's."),
            )
        ]

    def __str__(self) -> str:
        return self.display_name or self.get_full_name() or self.username

    def clean(self) -> None:
        super().clean()  # normalises the user name (NFKC)
        if isinstance(self.username, str):  # None once a form has refused it
            self.username_key = username_key(self.username)

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_key = username_key(self.username)
        fields = kwargs.get("update_fields")
        if fields is not None and "username" in fields:
            kwargs["update_fields"] = {*fields, "username_key"}
        super().save(*args, **kwargs)


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


class SignOnIdentity(models.Model):
    """Who a person is at an OpenID provider: the issuer and its subject, the only claims that
    never change or pass to someone else. A sign-on finds its account by them alone, never by
    an email address, which a provider may let anyone claim."""

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="sign_on_identities", verbose_name=_("user")
    )
    issuer = models.CharField(_("issuer"), max_length=255)
    subject = models.CharField(_("subject"), max_length=255)
    created = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("sign-on identity")
        verbose_name_plural = _("sign-on identities")
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="one_account_per_identity")
        ]

    def __str__(self) -> str:
        return f"{self.subject} @ {self.issuer}"


class SecondFactor(models.Model):
    """A person's authenticator app: the shared secret of its time-based codes (RFC 6238).
    Unconfirmed until a first code is entered; only a confirmed one is asked for at login."""

    user = models.OneToOneField(
        User, on_delete=models.CASCADE, related_name="second_factor", verbose_name=_("user")
    )
    secret = models.CharField(_("secret"), max_length=64, editable=False)
    confirmed = models.DateTimeField(_("turned on at"), null=True, blank=True, editable=False)
    # The last 30-second step whose code was accepted: a code seen once is refused after.
    last_step = models.BigIntegerField(_("last step used"), default=0, editable=False)

    class Meta:
        verbose_name = _("second factor")
        verbose_name_plural = _("second factors")

    def __str__(self) -> str:
        return f"second factor of {self.user}"


class RecoveryCode(models.Model):
    """A single-use code for a login without the authenticator app. Only its SHA-256 is
    stored: the code is shown once, and its 60 random bits make a slow hash needless."""

    factor = models.ForeignKey(
        SecondFactor,
        on_delete=models.CASCADE,
        related_name="recovery_codes",
        verbose_name=_("second factor"),
    )
    code_hash = models.CharField(_("code hash"), max_length=64, editable=False)
    used = models.DateTimeField(_("used at"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("recovery code")
        verbose_name_plural = _("recovery codes")

    def __str__(self) -> str:
        return f"recovery code {self.pk}"
