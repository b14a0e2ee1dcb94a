"""Inline editing of a two-level outline of a framework, served as htmx fragments.

The taxonomy (competency > sub-competency) and the context variables (variable > allowed value)
have the same shape, so the same plain views edit both: taxonomy/urls.py routes each URL of
either outline to them with the `Outline` it edits (COMPETENCIES or CONTEXT_VARIABLES). Every
change goes through audit.editing, which refuses stale saves and deletes that would orphan data,
and records history.

htmx requests get a fragment of the outline's page (its card, or the whole outline); plain form
posts a redirect (success) or the whole page with the failing card open (errors), so the pages
work without JavaScript too (l2annot.htmx.respond).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.db import models, transaction
from django.forms import ModelForm
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from audit import editing
from core.refusals import Conflict
from l2annot.errors import status_for
from l2annot.htmx import respond
from taxonomy.forms import (
    CompetencyForm,
    ContextValueForm,
    ContextVariableForm,
    ProficiencyLevelForm,
    ProficiencyScaleForm,
    SubCompetencyForm,
)
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from taxonomy.scales import sync_scale_values


@dataclass(frozen=True)
class Level:
    model: type[models.Model]
    form: type[ModelForm[Any]]
    parent_field: str  # the field naming the parent: "framework" for an item
    audited_fields: tuple[str, ...]
    label: str | Promise  # "competency", in the reader's language
    # What else follows a saved object, in the same transaction (a scale's levels: the values
    # of the variables that take them).
    after_save: Callable[[Any, User], object] | None = None
    # Refuses (raises a Conflict) a change made by hand to an object that follows other data (a
    # value tied to a scale's level), new or saved, before any form is read.
    guard: Callable[[Any], None] | None = None

    def check(self, obj: models.Model) -> None:
        if self.guard is not None:
            self.guard(obj)

    def saved(self, obj: models.Model, actor: User) -> None:
        if self.after_save is not None:
            self.after_save(obj, actor)


@dataclass(frozen=True)
class Outline:
    page: str  # the page's URL name
    template: str
    title: str | Promise
    item: Level
    sub: Level
    children: str  # the related name of an item's subs
    listed_kinds_only: bool = False  # only an item whose values are listed takes subs
    prefetch: tuple[str, ...] = ()  # what the cards show besides the item and its subs

    def takes_children(self, item: Any) -> bool:
        return not self.listed_kinds_only or item.has_listed_values

    def items_of(self, framework: Framework) -> editing.OrderedQuerySet[Any]:
        # Both item models (Competency, ContextVariable) are managed by an OrderedQuerySet.
        items = self.item.model._default_manager.filter(framework=framework)
        return cast(editing.OrderedQuerySet[Any], items)


COMPETENCIES = Outline(
    page="taxonomy:competencies",
    template="taxonomy/competencies.html",
    title=_("Competencies"),
    item=Level(
        Competency,
        CompetencyForm,
        "framework",
        ("code", "name", "description", "order"),
        _("competency"),
    ),
    sub=Level(
        SubCompetency,
        SubCompetencyForm,
        "competency",
        ("code", "name", "description", "order"),
        _("sub-competency"),
    ),
    children="sub_competencies",
)

CONTEXT_VARIABLES = Outline(
    page="taxonomy:context-variables",
    template="taxonomy/context_variables.html",
    title=_("Context variables"),
    item=Level(
        ContextVariable,
        ContextVariableForm,
        "framework",
        ("key", "label", "kind", "group", "minimum", "maximum", "scale", "description", "order"),
        _("context variable"),
        after_save=lambda variable, actor: sync_scale_values(variables=[variable], actor=actor),
    ),
    sub=Level(
        ContextValue,
        ContextValueForm,
        "variable",
        ("code", "label", "description", "order"),
        pgettext_lazy("a listed value of a context variable", "value"),
        guard=ContextValue.check_editable_by_hand,
    ),
    children="values",
    listed_kinds_only=True,
    prefetch=("scale",),
)

SCALES = Outline(
    page="taxonomy:scales",
    template="taxonomy/scales.html",
    title=_("Proficiency scales"),
    item=Level(
        ProficiencyScale,
        ProficiencyScaleForm,
        "framework",
        ("code", "name", "source", "description", "order"),
        _("proficiency scale"),
    ),
    sub=Level(
        ProficiencyLevel,
        ProficiencyLevelForm,
        "scale",
        ("code", "label", "description", "corresponds_to", "corresponds_to_upper", "order"),
        pgettext_lazy("a level of a proficiency scale", "level"),
        after_save=lambda level, actor: sync_scale_values(scales=[level.scale], actor=actor),
    ),
    children="levels",
    prefetch=("levels__corresponds_to__scale", "levels__corresponds_to_upper"),
)


# ----- rendering --------------------------------------------------------------------------------
def _items(outline: Outline, framework: Framework, **filters: Any) -> list[models.Model]:
    items = list(
        outline.items_of(framework)
        .filter(**filters)
        .prefetch_related(outline.children, *outline.prefetch)
    )
    for item in items:
        item.children = list(getattr(item, outline.children).all())
        item.takes_children = outline.takes_children(item)
        # Bound to its parent, so a form can offer choices that depend on it (a level maps only
        # to the other scales' levels).
        parent = outline.sub.model(**{outline.sub.parent_field: item})
        item.new_sub_form = outline.sub.form(prefix=f"new-{item.pk}", instance=parent)
    return items


def _page_context(outline: Outline, framework: Framework) -> dict[str, Any]:
    return {
        "framework": framework,
        "frameworks": Framework.objects.all(),
        "items": _items(outline, framework),
        "outline": outline,
        "new_item_form": outline.item.form(prefix="new"),
    }


def _page_url(outline: Outline, framework: Framework) -> str:
    return reverse(outline.page, args=[framework.code])


def _card(
    request: AuthenticatedHttpRequest,
    outline: Outline,
    item: models.Model,
    status: int = 200,
    **state: Any,
) -> HttpResponse:
    """The item's card: the fragment for htmx, else a redirect after a success or the page."""
    framework = getattr(item, outline.item.parent_field)
    [fresh] = _items(outline, framework, pk=item.pk)
    context = {"framework": framework, "item": fresh, "outline": outline, "active": fresh.pk}
    return respond(
        request,
        outline.template,
        context | state,
        fragment="card",
        done_url=_page_url(outline, framework) + f"#item-{item.pk}",
        status=status,
        page_context=lambda: _page_context(outline, framework),
    )


def _list(
    request: AuthenticatedHttpRequest,
    outline: Outline,
    framework: Framework,
    status: int = 200,
    **state: Any,
) -> HttpResponse:
    """The whole outline: the fragment for htmx, else a redirect after a success or the page."""
    context = _page_context(outline, framework) | state
    done_url = _page_url(outline, framework)
    return respond(
        request, outline.template, context, fragment="outline", done_url=done_url, status=status
    )


def _save(
    request: AuthenticatedHttpRequest,
    outline: Outline,
    level: Level,
    obj: models.Model,
    item: models.Model,
    form_name: str,
    **state: Any,
) -> HttpResponse:
    """Validate and save an edit form of an item or a sub (`obj`), answering with the item's
    card (read again: the form changes its instance while validating); on a stale revision
    show both versions."""
    form = level.form(request.POST, instance=obj)
    if not form.is_valid():
        return _card(request, outline, item, 422, **{form_name: form}, **state)
    changes = {name: form.cleaned_data[name] for name in form._meta.fields or ()}
    try:
        with transaction.atomic():
            revision = form.cleaned_data.get("revision") or 0
            level.saved(editing.update(obj, changes, revision, request.user), request.user)
    except editing.EditConflict as conflict:
        # Re-offer the editor's own text on top of the current revision: saving again is a
        # deliberate overwrite, made with both versions in view.
        data = request.POST.copy()
        data["revision"] = str(conflict.current.revision)
        retry = level.form(data, instance=conflict.current)
        retry.is_valid()
        status = status_for(conflict)
        differences = conflict.differences(changes)
        return _card(
            request, outline, item, status, **{form_name: retry}, conflict=differences, **state
        )
    return _card(request, outline, item, saved=obj.pk)


def _refusal(
    request: AuthenticatedHttpRequest, outline: Outline, item: models.Model, sub: models.Model
) -> HttpResponse | None:
    """The item's card with the refusal when `sub` may not be changed by hand (Level.guard)."""
    try:
        outline.sub.check(sub)
    except Conflict as refused:
        return _card(request, outline, item, status_for(refused), error=str(refused))
    return None


def _offset(direction: str) -> int:
    return {"up": -1, "down": 1}.get(direction, 0)


# ----- views ------------------------------------------------------------------------------------
@require(Action.VIEW_TAXONOMY)
def index(request: AuthenticatedHttpRequest) -> HttpResponse:
    framework = Framework.objects.order_by("pk").first()
    if framework is None:
        return redirect("home")
    return redirect(COMPETENCIES.page, framework.code)


@require(Action.VIEW_TAXONOMY)
def page(request: AuthenticatedHttpRequest, framework_code: str, outline: Outline) -> HttpResponse:
    framework = get_object_or_404(Framework, code=framework_code)
    return render(request, outline.template, _page_context(outline, framework))


@require(Action.VIEW_TAXONOMY)
def item_card(request: AuthenticatedHttpRequest, pk: int, outline: Outline) -> HttpResponse:
    """The card as it stands (Cancel of an edit)."""
    return _card(request, outline, get_object_or_404(outline.item.model, pk=pk))


@require(Action.EDIT_TAXONOMY)
@require_POST
def item_create(
    request: AuthenticatedHttpRequest, framework_code: str, outline: Outline
) -> HttpResponse:
    framework = get_object_or_404(Framework, code=framework_code)
    instance: Any = outline.item.model(**{outline.item.parent_field: framework})
    instance.order = outline.items_of(framework).next_order()
    form = outline.item.form(request.POST, instance=instance, prefix="new")
    if not form.is_valid():
        return _list(request, outline, framework, 422, new_item_form=form)
    with transaction.atomic():
        editing.create(form.instance, request.user, outline.item.audited_fields)
        outline.item.saved(form.instance, request.user)
    return _list(request, outline, framework, created=form.instance.pk)


@require(Action.EDIT_TAXONOMY)
@require_http_methods(["GET", "POST"])
def item_edit(request: AuthenticatedHttpRequest, pk: int, outline: Outline) -> HttpResponse:
    item = get_object_or_404(outline.item.model, pk=pk)
    if request.method == "GET":
        return _card(request, outline, item, item_form=outline.item.form(instance=item))
    return _save(request, outline, outline.item, item, item, "item_form")


@require(Action.EDIT_TAXONOMY)
@require_POST
def item_delete(request: AuthenticatedHttpRequest, pk: int, outline: Outline) -> HttpResponse:
    item = get_object_or_404(outline.item.model, pk=pk)
    framework = getattr(item, outline.item.parent_field)
    try:
        editing.delete(item, request.user, outline.item.audited_fields)
    except editing.DeleteRefused as refused:
        status = status_for(refused)
        return _list(request, outline, framework, status, active=pk, error=str(refused))
    return _list(request, outline, framework)


@require(Action.EDIT_TAXONOMY)
@require_POST
def item_move(
    request: AuthenticatedHttpRequest, pk: int, direction: str, outline: Outline
) -> HttpResponse:
    item = get_object_or_404(outline.item.model, pk=pk)
    framework = getattr(item, outline.item.parent_field)
    editing.move(item, outline.items_of(framework), _offset(direction), request.user)
    return _list(request, outline, framework)


@require(Action.EDIT_TAXONOMY)
@require_POST
def sub_create(request: AuthenticatedHttpRequest, pk: int, outline: Outline) -> HttpResponse:
    item = get_object_or_404(outline.item.model, pk=pk)
    if not outline.takes_children(item):
        error = gettext("%(item)s takes no %(label)s.") % {"item": item, "label": outline.sub.label}
        return _card(request, outline, item, 422, error=error)
    siblings = getattr(item, outline.children)
    instance: Any = outline.sub.model(**{outline.sub.parent_field: item})
    instance.order = siblings.next_order()
    if refused := _refusal(request, outline, item, instance):
        return refused
    form = outline.sub.form(request.POST, instance=instance, prefix=f"new-{item.pk}")
    if not form.is_valid():
        return _card(request, outline, item, 422, new_sub_form=form)
    with transaction.atomic():
        editing.create(form.instance, request.user, outline.sub.audited_fields)
        outline.sub.saved(form.instance, request.user)
    return _card(request, outline, item, created=form.instance.pk)


@require(Action.EDIT_TAXONOMY)
@require_http_methods(["GET", "POST"])
def sub_edit(request: AuthenticatedHttpRequest, pk: int, outline: Outline) -> HttpResponse:
    sub = get_object_or_404(outline.sub.model, pk=pk)
    item = getattr(sub, outline.sub.parent_field)
    if refused := _refusal(request, outline, item, sub):
        return refused
    if request.method == "GET":
        form = outline.sub.form(instance=sub)
        return _card(request, outline, item, editing_sub=sub.pk, sub_form=form)
    return _save(request, outline, outline.sub, sub, item, "sub_form", editing_sub=sub.pk)


@require(Action.EDIT_TAXONOMY)
@require_POST
def sub_delete(request: AuthenticatedHttpRequest, pk: int, outline: Outline) -> HttpResponse:
    sub = get_object_or_404(outline.sub.model, pk=pk)
    item = getattr(sub, outline.sub.parent_field)
    try:
        outline.sub.check(sub)
        editing.delete(sub, request.user, outline.sub.audited_fields)
    except Conflict as refused:
        return _card(request, outline, item, status_for(refused), error=str(refused))
    return _card(request, outline, item)


@require(Action.EDIT_TAXONOMY)
@require_POST
def sub_move(
    request: AuthenticatedHttpRequest, pk: int, direction: str, outline: Outline
) -> HttpResponse:
    sub = get_object_or_404(outline.sub.model, pk=pk)
    item = getattr(sub, outline.sub.parent_field)
    siblings = getattr(item, outline.children).all()
    if refused := _refusal(request, outline, item, sub):
        return refused
    with transaction.atomic():
        outline.sub.saved(
            editing.move(sub, siblings, _offset(direction), request.user), request.user
        )
    return _card(request, outline, item)
