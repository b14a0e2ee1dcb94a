"""Inline editing of a two-level outline of a framework, served as htmx fragments.

The taxonomy (competency > sub-competency) and the context variables (variable > allowed value)
have the same shape, so one editor serves both. Every change goes through audit.editing, which
refuses stale saves and deletes that would orphan data, and records history.

Each response is a fragment of the page template for htmx requests, and for plain form posts a
redirect (success) or the whole page with the failing card open (errors), so the pages work
without JavaScript too.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import require
from accounts.roles import Action
from audit import editing
from l2annot.errors import status_for
from l2annot.htmx import respond
from taxonomy.models import Framework


@dataclass(frozen=True)
class Level:
    model: type[models.Model]
    form: type[ModelForm]
    parent_field: str
    audited_fields: tuple[str, ...]


@dataclass(frozen=True)
class OutlineEditor:
    slug: str  # URL segment and name prefix, e.g. "taxonomy"
    template: str
    item: Level
    sub: Level
    items_of: Callable[[Framework], models.QuerySet]
    subs_related_name: str
    title: str
    item_label: str  # "competency"
    sub_label: str  # "sub-competency"
    takes_children: Callable[[Any], bool] = lambda item: True

    @property
    def item_name(self) -> str:
        return self.item.model._meta.model_name  # type: ignore[return-value]

    @property
    def sub_name(self) -> str:
        return self.sub.model._meta.model_name  # type: ignore[return-value]

    @property
    def item_template(self) -> str:
        return f"taxonomy/_{self.item_name}.html"

    @property
    def sub_template(self) -> str:
        return f"taxonomy/_{self.sub_name}.html"

    # ----- URLs ---------------------------------------------------------------------------
    def urls(self) -> list[URLPattern]:
        item, sub = self.item_name, self.sub_name
        return [
            path(f"<slug:framework_code>/{self.slug}/", self.page, name=self.slug),
            path(
                f"<slug:framework_code>/{self.slug}/new/", self.item_create, name=f"{item}_create"
            ),
            path(f"{self.slug}/<int:pk>/", self.item_card, name=f"{item}_card"),
            path(f"{self.slug}/<int:pk>/edit/", self.item_edit, name=f"{item}_edit"),
            path(f"{self.slug}/<int:pk>/delete/", self.item_delete, name=f"{item}_delete"),
            path(
                f"{self.slug}/<int:pk>/move/<str:direction>/", self.item_move, name=f"{item}_move"
            ),
            path(f"{self.slug}/<int:pk>/{sub}/new/", self.sub_create, name=f"{sub}_create"),
            path(f"{self.slug}/{sub}/<int:pk>/edit/", self.sub_edit, name=f"{sub}_edit"),
            path(f"{self.slug}/{sub}/<int:pk>/delete/", self.sub_delete, name=f"{sub}_delete"),
            path(
                f"{self.slug}/{sub}/<int:pk>/move/<str:direction>/",
                self.sub_move,
                name=f"{sub}_move",
            ),
        ]

    # ----- rendering ----------------------------------------------------------------------
    def _items(self, framework: Framework, **filters: Any) -> list[models.Model]:
        items = list(
            self.items_of(framework).filter(**filters).prefetch_related(self.subs_related_name)
        )
        for item in items:
            item.children = list(getattr(item, self.subs_related_name).all())
            item.takes_children = self.takes_children(item)
            item.new_sub_form = self.sub.form(prefix=f"new-{item.pk}")
        return items

    def _page_context(self, framework: Framework) -> dict[str, Any]:
        return {
            "framework": framework,
            "frameworks": Framework.objects.all(),
            "items": self._items(framework),
            "editor": self,
            "new_item_form": self.item.form(prefix="new"),
        }

    def _render_item(
        self, request: HttpRequest, item: models.Model, status: int = 200, **state: Any
    ) -> HttpResponse:
        framework = self._framework_of(item)
        [fresh] = self._items(framework, pk=item.pk)
        context = {"framework": framework, "item": fresh, "editor": self, "active": fresh.pk}
        return respond(
            request,
            self.template,
            context | state,
            fragment="card",
            done_url=self._page_url(framework) + f"#item-{item.pk}",
            status=status,
            page_context=lambda: self._page_context(framework),
        )

    def _render_list(
        self, request: HttpRequest, framework: Framework, status: int = 200, **state: Any
    ) -> HttpResponse:
        context = self._page_context(framework) | state
        done_url = self._page_url(framework)
        return respond(
            request, self.template, context, fragment="outline", done_url=done_url, status=status
        )

    def _page_url(self, framework: Framework) -> str:
        return reverse(f"taxonomy:{self.slug}", args=[framework.code])

    def _framework_of(self, item: models.Model) -> Framework:
        return getattr(item, self.item.parent_field)

    def _item_of(self, sub: models.Model) -> models.Model:
        return getattr(sub, self.sub.parent_field)

    # ----- views --------------------------------------------------------------------------
    @property
    def page(self) -> Callable[..., HttpResponse]:
        @require(Action.VIEW_TAXONOMY)
        def view(request: HttpRequest, framework_code: str) -> HttpResponse:
            framework = get_object_or_404(Framework, code=framework_code)
            return render(request, self.template, self._page_context(framework))

        return view

    @property
    def item_card(self) -> Callable[..., HttpResponse]:
        @require(Action.VIEW_TAXONOMY)
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            return self._render_item(request, get_object_or_404(self.item.model, pk=pk))

        return view

    @property
    def item_create(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_POST
        def view(request: HttpRequest, framework_code: str) -> HttpResponse:
            framework = get_object_or_404(Framework, code=framework_code)
            instance = self.item.model(**{self.item.parent_field: framework})
            instance.order = self.items_of(framework).next_order()
            form = self.item.form(request.POST, instance=instance, prefix="new")
            if not form.is_valid():
                return self._render_list(request, framework, 422, new_item_form=form)
            editing.create(form.instance, request.user, self.item.audited_fields)
            return self._render_list(request, framework, created=form.instance.pk)

        return view

    @property
    def item_edit(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_http_methods(["GET", "POST"])
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            item = get_object_or_404(self.item.model, pk=pk)
            if request.method == "GET":
                return self._render_item(request, item, item_form=self.item.form(instance=item))
            form = self.item.form(request.POST, instance=item)
            return self._save(request, form, item, "item_form", lambda: item)

        return view

    @property
    def item_delete(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_POST
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            item = get_object_or_404(self.item.model, pk=pk)
            framework = self._framework_of(item)
            try:
                editing.delete(item, request.user, self.item.audited_fields)
            except editing.DeleteRefused as refused:
                status = status_for(refused)
                return self._render_list(request, framework, status, active=pk, error=str(refused))
            return self._render_list(request, framework)

        return view

    @property
    def item_move(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_POST
        def view(request: HttpRequest, pk: int, direction: str) -> HttpResponse:
            item = get_object_or_404(self.item.model, pk=pk)
            framework = self._framework_of(item)
            editing.move(item, self.items_of(framework), _offset(direction), request.user)
            return self._render_list(request, framework)

        return view

    @property
    def sub_create(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_POST
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            item = get_object_or_404(self.item.model, pk=pk)
            if not self.takes_children(item):
                error = f"{item} takes no {self.sub_label}s."
                return self._render_item(request, item, 422, error=error)
            siblings = getattr(item, self.subs_related_name)
            instance = self.sub.model(**{self.sub.parent_field: item})
            instance.order = siblings.next_order()
            form = self.sub.form(request.POST, instance=instance, prefix=f"new-{item.pk}")
            if not form.is_valid():
                return self._render_item(request, item, 422, new_sub_form=form)
            editing.create(form.instance, request.user, self.sub.audited_fields)
            return self._render_item(request, item, created=form.instance.pk)

        return view

    @property
    def sub_edit(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_http_methods(["GET", "POST"])
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            sub = get_object_or_404(self.sub.model, pk=pk)
            item = self._item_of(sub)
            if request.method == "GET":
                return self._render_item(
                    request, item, editing_sub=sub.pk, sub_form=self.sub.form(instance=sub)
                )
            form = self.sub.form(request.POST, instance=sub)
            return self._save(request, form, sub, "sub_form", lambda: item, editing_sub=sub.pk)

        return view

    @property
    def sub_delete(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_POST
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            sub = get_object_or_404(self.sub.model, pk=pk)
            item = self._item_of(sub)
            try:
                editing.delete(sub, request.user, self.sub.audited_fields)
            except editing.DeleteRefused as refused:
                return self._render_item(request, item, status_for(refused), error=str(refused))
            return self._render_item(request, item)

        return view

    @property
    def sub_move(self) -> Callable[..., HttpResponse]:
        @require(Action.EDIT_TAXONOMY)
        @require_POST
        def view(request: HttpRequest, pk: int, direction: str) -> HttpResponse:
            sub = get_object_or_404(self.sub.model, pk=pk)
            item = self._item_of(sub)
            siblings = getattr(item, self.subs_related_name).all()
            editing.move(sub, siblings, _offset(direction), request.user)
            return self._render_item(request, item)

        return view

    def _save(
        self,
        request: HttpRequest,
        form: ModelForm,
        obj: models.Model,
        form_name: str,
        card_of: Callable[[], models.Model],
        **state: Any,
    ) -> HttpResponse:
        """Validate and save an edit form; on a stale revision show both versions."""
        # The form mutates its instance while validating; the card must show the saved values.
        card = card_of()
        if not form.is_valid():
            return self._render_item(request, card, 422, **{form_name: form}, **state)
        changes = {name: form.cleaned_data[name] for name in form._meta.fields}
        try:
            editing.update(obj, changes, form.cleaned_data.get("revision") or 0, request.user)
        except editing.EditConflict as conflict:
            bound = self.item.form if form_name == "item_form" else self.sub.form
            # Re-offer the editor's own text on top of the current revision: saving again is a
            # deliberate overwrite, made with both versions in view.
            data = request.POST.copy()
            data["revision"] = str(conflict.current.revision)
            retry = bound(data, instance=conflict.current)
            retry.is_valid()
            return self._render_item(
                request,
                card_of(),
                status_for(conflict),
                **{form_name: retry},
                conflict=conflict.differences(changes),
                **state,
            )
        return self._render_item(request, card_of(), saved=obj.pk)


def _offset(direction: str) -> int:
    return {"up": -1, "down": 1}.get(direction, 0)
