"""People: admins invite someone, then set their role and expertise or deactivate them from
the person's page. Every change goes through people.services."""

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import ROLE_LABELS, Action, Role, role_label
from accounts.services import role_of
from audit.models import AuditEvent
from grading.models import Expertise
from l2annot.htmx import redirect_to, render_page
from people import services
from people.forms import ExpertiseForm, InviteForm, RoleForm

PEOPLE_PER_PAGE = 50


def _base_url(request: AuthenticatedHttpRequest) -> str:
    return request.build_absolute_uri("/")


def _list_page(
    request: AuthenticatedHttpRequest,
    form: InviteForm,
    status: int = 200,
    fragment: str | None = None,
) -> HttpResponse:
    people = User.objects.order_by("username").prefetch_related(
        "groups", Prefetch("expertise", Expertise.objects.select_related("sub_competency"))
    )
    page = Paginator(people, PEOPLE_PER_PAGE).get_page(request.GET.get("page"))
    rows = [
        {
            "person": person,
            "role": next(
                (ROLE_LABELS[Role(g.name)] for g in person.groups.all() if g.name in Role), ""
            ),
            "expertise": sorted(
                str(e.sub_competency.code if e.sub_competency else e.get_language_display())
                for e in person.expertise.all()
            ),
        }
        for person in page.object_list
    ]
    context = {"page": page, "rows": rows, "form": form}
    return render_page(request, "people/people.html", context, status=status, fragment=fragment)


@require(Action.MANAGE_PEOPLE)
def people(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _list_page(request, InviteForm(), fragment="people-table")


@require(Action.MANAGE_PEOPLE)
@require_POST
def invite(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = InviteForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            person = services.invite(
                username=data["username"],
                email=data["email"],
                display_name=data["display_name"],
                role=Role(data["role"]),
                base_url=_base_url(request),
                by=request.user,
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            person.refresh_from_db(fields=["invitation_unsent"])  # the email left on commit
            if person.invitation_unsent:
                messages.error(request, unsent_message(person))
            else:
                messages.success(
                    request,
                    _("%(username)s is invited: an email is on its way.")
                    % {"username": person.username},
                )
            return redirect_to(request, reverse("people:person", args=[person.pk]))
    return _list_page(request, form, status=422)


def unsent_message(person: User) -> str:
    return _(
        "%(username)s's account is made, but the email with their set-password link could not "
        "be sent: the mail server refused it or did not answer. Check the mail settings, then "
        "send the link again from this page."
    ) % {"username": person.username}


def _person_page(
    request: AuthenticatedHttpRequest, person: User, status: int = 200, **forms: Any
) -> HttpResponse:
    subs, languages = services.expertise_of(person)
    role = role_of(person)
    context = {
        "person": person,
        "role": role_label(role),
        "role_form": forms.get("role_form")
        or RoleForm(initial={"role": role.value if role else None}),
        "expertise_form": forms.get("expertise_form")
        or ExpertiseForm(initial={"sub_competencies": subs, "languages": ", ".join(languages)}),
        "is_self": person.pk == request.user.pk,
        "events": AuditEvent.objects.for_object(person).select_related("actor")[:50],
    }
    return render_page(request, "people/person.html", context, status=status)


def _person(pk: int) -> User:
    return get_object_or_404(User, pk=pk)


@require(Action.MANAGE_PEOPLE)
def person(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _person_page(request, _person(pk))


def _done(request: AuthenticatedHttpRequest, person: User, message: str) -> HttpResponse:
    messages.success(request, message)
    return redirect_to(request, reverse("people:person", args=[person.pk]))


@require(Action.MANAGE_PEOPLE)
@require_POST
def person_role(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    person = _person(pk)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _person_page(request, person, 422, role_form=form)
    services.set_role(person, Role(form.cleaned_data["role"]), by=request.user)
    role = ROLE_LABELS[Role(form.cleaned_data["role"])]
    return _done(
        request,
        person,
        _("%(username)s is now %(role)s.") % {"username": person.username, "role": role},
    )


@require(Action.MANAGE_PEOPLE)
@require_POST
def person_expertise(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    person = _person(pk)
    form = ExpertiseForm(request.POST)
    if not form.is_valid():
        return _person_page(request, person, 422, expertise_form=form)
    data = form.cleaned_data
    services.set_expertise(person, data["sub_competencies"], data["languages"], by=request.user)
    return _done(
        request, person, _("%(username)s's expertise is saved.") % {"username": person.username}
    )


@require(Action.MANAGE_PEOPLE)
@require_POST
def person_active(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    person = _person(pk)
    active = request.POST.get("active") == "1"
    services.set_active(person, active, by=request.user)
    message = (
        _("%(username)s is reactivated.")
        if active
        else _("%(username)s is deactivated: they can no longer sign in.")
    )
    return _done(request, person, message % {"username": person.username})


@require(Action.MANAGE_PEOPLE)
@require_POST
def person_invite(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    person = _person(pk)
    try:
        services.send_invitation(person, _base_url(request), by=request.user)
    except services.NoEmailToInvite as error:
        messages.error(request, str(error))
        return redirect_to(request, reverse("people:person", args=[person.pk]))
    except services.InvitationNotSent as error:
        messages.error(request, str(error))
        return redirect_to(request, reverse("people:person", args=[person.pk]))
    return _done(
        request,
        person,
        _("A new set-password link is on its way to %(email)s.") % {"email": person.email},
    )
