from django.contrib.contenttypes.models import ContentType
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.permissions import require
from accounts.roles import Action
from audit.models import AuditEvent

# Only the benchmark's own content has a public history; accounts and grades do not.
AUDITED_APPS = {"taxonomy", "rubrics"}


@require(Action.VIEW_HISTORY)
def history(request: HttpRequest, app_label: str, model: str, pk: str) -> HttpResponse:
    if app_label not in AUDITED_APPS:
        raise Http404("No history is kept for this kind of object.")
    try:
        content_type = ContentType.objects.get_by_natural_key(app_label, model)
    except ContentType.DoesNotExist:
        raise Http404("Unknown kind of object.") from None
    events = AuditEvent.objects.filter(content_type=content_type, object_id=pk).select_related(
        "actor"
    )
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    if not page.object_list and page.number == 1:
        raise Http404("No history for this object.")
    subject = content_type.model_class()._default_manager.filter(pk=pk).first()  # type: ignore[union-attr]
    return render(
        request,
        "audit/history.html",
        {
            "page": page,
            "subject": subject,
            "subject_repr": str(subject) if subject else page.object_list[0].object_repr,
            "kind": content_type.model_class()._meta.verbose_name,  # type: ignore[union-attr]
        },
    )
