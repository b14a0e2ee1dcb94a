"""The second factor: time-based one-time codes (RFC 6238, pyotp) from an authenticator app,
and single-use recovery codes for a login without it.

A code is accepted for the current 30-second step and one on either side (a phone's clock
drifts), and never twice: the step of the last accepted code is kept (`SecondFactor.last_step`).
"""

import hashlib
import hmac
import secrets
import time

import pyotp
import segno
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import RecoveryCode, SecondFactor, User
from accounts.roles import Role
from accounts.services import role_of

RECOVERY_CODES = 10
STEP_SECONDS = 30
# Roles that must have a second factor when TWO_FACTOR_REQUIRED is on.
REQUIRED_FOR = frozenset({Role.ADMIN, Role.MAINTAINER})
# Recovery codes: 12 letters and digits of an alphabet without look-alikes (60 bits).
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def confirmed_factor(user: User) -> SecondFactor | None:
    return SecondFactor.objects.filter(user=user, confirmed__isnull=False).first()


def is_required(user: User) -> bool:
    """Whether this person must have a second factor before doing anything else."""
    return settings.TWO_FACTOR_REQUIRED and role_of(user) in REQUIRED_FOR


def start_setup(user: User) -> SecondFactor:
    """A new, unconfirmed secret for `user` (replacing an unconfirmed one); a confirmed factor
    is left alone: turning it off comes first."""
    factor, _ = SecondFactor.objects.get_or_create(
        user=user, defaults={"secret": pyotp.random_base32()}
    )
    if factor.confirmed is None:
        factor.secret = pyotp.random_base32()
        factor.last_step = 0
        factor.save(update_fields=["secret", "last_step"])
    return factor


def provisioning_uri(factor: SecondFactor) -> str:
    """The otpauth:// address an authenticator app reads (as a QR code or typed)."""
    return pyotp.TOTP(factor.secret).provisioning_uri(
        name=factor.user.username, issuer_name=settings.TWO_FACTOR_ISSUER
    )


def qr_code_svg(factor: SecondFactor) -> str:
    """The provisioning address as a QR code, an SVG data URI (the page's policy allows data:
    images, and no script or other request is needed)."""
    return str(segno.make(provisioning_uri(factor), error="m").svg_data_uri(scale=5, border=2))


def _accepted_step(factor: SecondFactor, code: str) -> int | None:
    code = "".join(code.split())
    if not (code.isdigit() and len(code) == 6):
        return None
    totp = pyotp.TOTP(factor.secret)
    now = int(time.time()) // STEP_SECONDS
    for step in (now - 1, now, now + 1):
        if step > factor.last_step and hmac.compare_digest(totp.at(step * STEP_SECONDS), code):
            return step
    return None


def _use_code(factor: SecondFactor, code: str) -> bool:
    """Accept a current code once (under a row lock: two requests racing with one code, one
    wins)."""
    with transaction.atomic():
        locked = SecondFactor.objects.select_for_update(of=("self",)).get(pk=factor.pk)
        step = _accepted_step(locked, code)
        if step is None:
            return False
        SecondFactor.objects.filter(pk=factor.pk).update(last_step=step)
        factor.last_step = step
        return True


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _normalised(code: str) -> str:
    return "".join(char for char in code.lower() if char.isalnum())


def _new_recovery_codes(factor: SecondFactor) -> list[str]:
    codes = ["".join(secrets.choice(_ALPHABET) for _ in range(12)) for _ in range(RECOVERY_CODES)]
    factor.recovery_codes.all().delete()
    RecoveryCode.objects.bulk_create(
        RecoveryCode(factor=factor, code_hash=_hash(code)) for code in codes
    )
    return [f"{code[:4]}-{code[4:8]}-{code[8:]}" for code in codes]


@transaction.atomic
def confirm(factor: SecondFactor, code: str) -> list[str] | None:
    """Turn the factor on with a first code from the app: its recovery codes (shown once), or
    None for a wrong code."""
    if factor.confirmed is not None or not _use_code(factor, code):
        return None
    factor.confirmed = timezone.now()
    factor.save(update_fields=["confirmed"])
    return _new_recovery_codes(factor)


@transaction.atomic
def replace_recovery_codes(factor: SecondFactor, code: str) -> list[str] | None:
    """New recovery codes for a current code from the app (the old ones stop working)."""
    if not _use_code(factor, code):
        return None
    return _new_recovery_codes(factor)


def verify(factor: SecondFactor, code: str) -> bool:
    """A login's second step: a current code from the app, or an unused recovery code (used
    up by this)."""
    if _use_code(factor, code):
        return True
    normalised = _normalised(code)
    if len(normalised) != 12:
        return False
    return bool(
        RecoveryCode.objects.filter(
            factor=factor, code_hash=_hash(normalised), used__isnull=True
        ).update(used=timezone.now())
    )


def unused_recovery_codes(factor: SecondFactor) -> int:
    return factor.recovery_codes.filter(used__isnull=True).count()


def turn_off(factor: SecondFactor, code: str) -> bool:
    """Remove the factor, recovery codes and all, for a current code or a recovery code."""
    if not verify(factor, code):
        return False
    factor.delete()
    return True
