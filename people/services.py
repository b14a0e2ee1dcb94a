"""Admins manage people in the app: invite them, set their role and expertise, deactivate and
reactivate them. Every change is recorded in the history of the person's account
(audit.AuditEvent on the user), in the same transaction.

An invitation is a password-reset link: the account is created without a usable password and
the email carries Django's reset token (`default_token_generator`), which stops working once the
password is set or after PASSWORD_RESET_TIMEOUT, so sending it again is the way to renew it.

An invitation is checked whole before anything is written (user name, email address, role,
expertise), and its email leaves once the account is committed (`transaction.on_commit`): a
refused invitation creates nothing and sends nothing. A mail server that refuses the email or
does not answer leaves the account made and marked `invitation_unsent` (on the People page and
in the API), to be sent again from the person's page once mail works; sending again while mail
still fails is an InvitationNotSent (503).
"""

import logging
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from accounts.roles import Role
from accounts.services import role_of
from audit import services as audit
from audit.models import AuditEvent
from core.languages import UnknownLanguage, language_code
from core.messages import gettext_noop
from core.refusals import Conflict, Unavailable
from grading import services as grading_services
from grading.models import Expertise, Study
from taxonomy.models import SubCompetency


class NotOnYourself(Conflict):
    """An admin changes other people's role and access, never their own: the last admin could
    otherwise lock everyone out."""


class LastAdmin(Conflict):
    """The change would leave no active admin, and nobody to manage people."""


class NoEmailToInvite(Conflict):
    """The account has no email address: its state, not the request, refuses an invitation
    (409 in the API; the People page shows it as a message)."""


class InvitationNotSent(Unavailable):
    """The mail server refused the invitation or did not answer (503): the account stays,
    marked `invitation_unsent`, and the email can be sent again once mail works."""


logger = logging.getLogger(__name__)

USERNAME_TAKEN: str = gettext_lazy(  # type: ignore[assignment]
    "This user name is already used: choose another."
)
EMAIL_TAKEN: str = gettext_lazy(  # type: ignore[assignment]
    "This email address is already used by another account."
)


def invitation_link(user: User, base_url: str) -> str:
    """The set-password link of `user`, under `base_url` (scheme and host, e.g. the request's)."""
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    return base_url.rstrip("/") + path


def send_invitation(user: User, base_url: str, *, by: User | None = None) -> None:
    """Email `user` a link to set their password (again, for a link that expired, or one the
    mail server did not take). InvitationNotSent when it does not take this one either."""
    if not user.email:
        raise NoEmailToInvite(_("This account has no email address to invite."))
    if not user.is_active:
        raise Conflict(_("This account is deactivated: reactivate it before inviting."))
    context = {"user": user, "link": invitation_link(user, base_url), "by": by}
    # In the invited person's language once they chose one, else in the inviting admin's.
    with translation.override(user.language or translation.get_language()):
        subject = render_to_string("people/invitation_subject.txt", context).strip()
        body = render_to_string("people/invitation_email.txt", context)
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email])
    except OSError as error:  # smtplib's errors, a refused or timed-out connection, DNS
        _mark_unsent(user, True, by, reason=repr(error))
        raise InvitationNotSent(
            _(
                "The email to %(email)s could not be sent: the mail server refused it or did "
                "not answer (%(error)s). Check the mail settings (EMAIL_HOST, docs/deploy.md), "
                "then send the set-password link again from the person's page."
            )
            % {"email": user.email, "error": error}
        ) from error
    _mark_unsent(user, False, by)


# What a person's history says of the changes the app makes (people.apps registers them).
INVITED = gettext_noop("invited")
NOT_SENT = gettext_noop("The invitation email could not be sent: %(reason)s")
SIGN_ON = gettext_noop("single sign-on: %(issuer)s, claim %(claim)s")
HISTORY_MESSAGES = (INVITED, NOT_SENT, SIGN_ON)


def _mark_unsent(user: User, unsent: bool, by: User | None, reason: str = "") -> None:
    if user.invitation_unsent == unsent:
        return
    user.invitation_unsent = unsent
    user.save(update_fields=["invitation_unsent"])
    comment = NOT_SENT.fill(reason=reason) if unsent else ""
    audit.record(
        user, AuditEvent.Kind.UPDATED, by, {"invitation_unsent": [not unsent, unsent]}, comment
    )


def _send_after_commit(user: User, base_url: str, by: User | None) -> None:
    try:
        send_invitation(user, base_url, by=by)
    except InvitationNotSent:  # kept on the account, which the pages and the API show
        logger.warning("The invitation to %s could not be sent.", user.username, exc_info=True)


def _invitation_errors(username: str, email: str) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if User.objects.filter(username__iexact=username).exists():
        errors["username"] = [USERNAME_TAKEN]
    else:
        try:
            User._meta.get_field("username").run_validators(username)
        except ValidationError as error:
            errors["username"] = error.messages
    if not email:
        errors["email"] = [_("An invitation needs an email address.")]
    else:
        try:
            validate_email(email)
        except ValidationError as error:
            errors["email"] = error.messages
        else:
            if User.objects.filter(email__iexact=email).exists():
                errors["email"] = [EMAIL_TAKEN]
    return errors


@transaction.atomic
def invite(
    *,
    username: str,
    email: str,
    role: Role,
    base_url: str,
    by: User | None,
    display_name: str = "",
    sub_competencies: Iterable[SubCompetency] = (),
    languages: Iterable[str] = (),
) -> User:
    """Create an account with `role` (and expertise) and no usable password, and once it is
    committed email its owner a link to set one. Everything is checked before anything is
    written: a user name or an email address already in use (case ignored), a user name that
    reads like another's (accounts.usernames), an unknown language; a ValidationError names
    each field. The returned account says whether the email could be sent
    (`invitation_unsent`, once the transaction this runs in is committed)."""
    username = User.normalize_username(username)
    errors = _invitation_errors(username, email)
    try:
        codes = list(dict.fromkeys(language_codes(languages)))
    except ValidationError as error:
        errors["languages"] = error.messages
    if errors:
        raise ValidationError(errors)
    user = User(username=username, email=email, display_name=display_name)
    user.set_unusable_password()
    _apply_role(user, role)
    user.save()
    user.groups.set([Group.objects.get(name=role.value)])
    audit.record(
        user,
        AuditEvent.Kind.CREATED,
        by,
        {"username": [None, username], "email": [None, email], "role": [None, role.value]},
        comment=INVITED,
    )
    set_expertise(user, sub_competencies, codes, by=by)
    # Once committed: an account rolled back later must not have been told it exists.
    transaction.on_commit(lambda: _send_after_commit(user, base_url, by))
    return user


def _apply_role(user: User, role: Role) -> None:
    # Admins also reach the Django admin.
    user.is_staff = user.is_superuser = role is Role.ADMIN


def _check_not_self(user: User, by: User | None, message: str) -> None:
    if by is not None and by.pk == user.pk:
        raise NotOnYourself(message)


def _is_admin(user: User) -> bool:
    return user.is_superuser or role_of(user) is Role.ADMIN


def check_change(user: User, *, role: Role | None, active: bool, by: User | None) -> None:
    """The rules of a change to someone's role or access, wherever it is made (the People
    page, the API, the Django admin): never your own, and never leaving no active admin.
    NotOnYourself or LastAdmin; `role` None keeps the role."""
    if role is not None and role is not role_of(user):
        _check_not_self(user, by, _("You cannot change your own role: ask another admin."))
    if active != user.is_active:
        _check_not_self(user, by, _("You cannot change your own access: ask another admin."))
    stays_admin = active and (role is Role.ADMIN if role is not None else _is_admin(user))
    if user.is_active and _is_admin(user) and not stays_admin:
        others = (
            User.objects.filter(is_active=True)
            .filter(Q(is_superuser=True) | Q(groups__name=Role.ADMIN.value))
            .exclude(pk=user.pk)
        )
        if not others.exists():
            raise LastAdmin(
                _(
                    "%(username)s is the last active admin: make someone else an admin first, "
                    "or nobody could manage people any more."
                )
                % {"username": user.username}
            )


def _locked(user: User, by: User | None) -> User:
    """`user` read again under the lock every change of who is an admin takes (the Admin
    group's row), so two admins demoting or deactivating each other at once are checked one
    after the other; and the acting admin is still one."""
    Group.objects.select_for_update(of=("self",)).get(name=Role.ADMIN.value)
    if by is not None and not User.objects.filter(pk=by.pk, is_active=True).exists():
        raise Conflict(_("Your own account was deactivated meanwhile."))
    return User.objects.get(pk=user.pk)


@transaction.atomic
def set_role(user: User, role: Role, *, by: User | None, comment: str = "") -> None:
    current = _locked(user, by)
    check_change(current, role=role, active=current.is_active, by=by)
    before = role_of(current)
    if before is role:
        return
    _apply_role(current, role)
    current.save(update_fields=["is_staff", "is_superuser"])
    current.groups.set([Group.objects.get(name=role.value)])
    user.is_staff, user.is_superuser = current.is_staff, current.is_superuser
    audit.record(
        current,
        AuditEvent.Kind.UPDATED,
        by,
        {"role": [before.value if before else None, role.value]},
        comment=comment,
    )


def set_role_from_sign_on(user: User, role: Role, *, issuer: str, claim: str) -> None:
    """The role the identity provider's claim names at a sign-on (accounts.sso), under the
    rules of every change of role (the last active admin keeps the role, logged) and in the
    history with the provider as its source: no person made it."""
    try:
        set_role(user, role, by=None, comment=SIGN_ON.fill(issuer=issuer, claim=claim))
    except LastAdmin:
        logger.warning("Sign-on: %s keeps the Admin role, the last admin's.", user.username)


@transaction.atomic
def set_active(user: User, active: bool, *, by: User | None) -> None:
    """Deactivate (no sign-in, no API token works, nothing new is assigned) or reactivate.
    Deactivating takes the person out of every study's pool: what they submitted stays, their
    unfinished work is planned for the others (grading.services.remove_annotator, in each
    study's history). Reactivating does not put them back: a maintainer adds them again."""
    current = _locked(user, by)
    check_change(current, role=None, active=active, by=by)
    if current.is_active == active:
        return
    current.is_active = user.is_active = active
    current.save(update_fields=["is_active"])
    audit.record(current, AuditEvent.Kind.STATUS, by, {"is_active": [not active, active]})
    if not active:
        for study in Study.objects.filter(pool__annotator=current).order_by("pk"):
            grading_services.remove_annotator(study, current, by=by)


@transaction.atomic
def change_person(
    user: User,
    *,
    role: Role | None = None,
    active: bool | None = None,
    sub_competencies: Iterable[SubCompetency] | None = None,
    languages: Iterable[str] | None = None,
    by: User | None,
) -> None:
    """Several changes at once (the API's PATCH): all made or none. The languages are read
    before anything changes; any refusal after (your own role, the last admin) undoes the
    changes made before it. None leaves a thing as it is; one list of expertise alone keeps
    the other."""
    if languages is not None:
        languages = language_codes(languages)
    if role is not None:
        set_role(user, role, by=by)
    if active is not None:
        set_active(user, active, by=by)
    if sub_competencies is not None or languages is not None:
        subs, codes = expertise_of(user)
        set_expertise(
            user,
            subs if sub_competencies is None else sub_competencies,
            codes if languages is None else languages,
            by=by,
        )


def expertise_of(user: User) -> tuple[list[SubCompetency], list[str]]:
    """The person's sub-competency tags and target-language tags."""
    rows = Expertise.objects.filter(annotator=user).select_related("sub_competency")
    subs = sorted((e.sub_competency for e in rows if e.sub_competency), key=lambda s: s.code)
    languages = sorted(e.language for e in rows if e.language)
    return subs, languages


def language_codes(languages: Iterable[str]) -> list[str]:
    """The codes of `languages` (codes or known names; blanks skipped). ValidationError
    naming every one not known."""
    codes, unknown = [], []
    for text in (x.strip() for x in languages):
        if not text:
            continue
        try:
            codes.append(language_code(text))
        except UnknownLanguage:
            unknown.append(text)
    if unknown:
        raise ValidationError(
            _(
                "Not a known language: %(languages)s. Give an ISO 639-1 code (like 'es') "
                "or an English name (like 'Spanish')."
            )
            % {"languages": ", ".join(unknown)}
        )
    return codes


def _tags(subs: Iterable[SubCompetency], languages: Iterable[str]) -> list[str]:
    return sorted(s.code for s in subs) + sorted(languages)


@transaction.atomic
def set_expertise(
    user: User,
    sub_competencies: Iterable[SubCompetency],
    languages: Iterable[str],
    *,
    by: User | None,
) -> None:
    """Replace the person's expertise tags (what a study matching expertise gives them: no tag
    of a kind means every value of it). A language is given by its ISO 639-1 code or a known
    name and stored as its code; ValidationError names the ones not known."""
    subs = list(dict.fromkeys(sub_competencies))
    langs = list(dict.fromkeys(language_codes(languages)))
    old_subs, old_langs = expertise_of(user)
    before, after = _tags(old_subs, old_langs), _tags(subs, langs)
    if before == after:
        return
    Expertise.objects.filter(annotator=user).delete()
    Expertise.objects.bulk_create(
        [Expertise(annotator=user, sub_competency=s) for s in subs]
        + [Expertise(annotator=user, language=x) for x in langs]
    )
    audit.record(user, AuditEvent.Kind.UPDATED, by, {"expertise": [before, after]})
