"""Judge prompt templates: the list, a new template, and the editor of a template's text with
a live preview of the prompt filled on one real unit, and prompt files downloaded and uploaded
(judging.prompt_files). Saving a changed text makes a new version; runs keep pointing at the
version they sent, which nothing changes. Maintainers only."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Count, Max, Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from core.formats.problems import Problem, gettext_noop
from core.prompting import SLOTS, template_problems
from grading.models import Study
from judging import prompt_files
from judging import services as prompts
from judging.forms import NewPromptForm, PromptForm
from judging.models import PromptTemplate, PromptVersion, TriageResolution
from judging.runs import RunNotPossible, preview
from judging.services import prompt_too_long
from l2annot.htmx import redirect_to, render_page
from l2annot.shown import message_text

LIST_PAGE = "judging/prompts.html"
PAGE = "judging/prompt.html"
# The preview shows at most this many times the longest prompt of the filled text.
PREVIEW_FACTOR = 4


@require(Action.MANAGE_STUDIES)
def prompt_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = NewPromptForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            version = prompts.create_template(
                data["name"],
                data["text"],
                style=data["style"],
                description=data["description"],
                by=request.user,
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            return redirect_to(request, reverse("judging:prompt", args=[version.template.pk]))
    status = 422 if form.is_bound and not form.is_valid() else 200
    return render_page(
        request, LIST_PAGE, _list_context(form), fragment="new-prompt", status=status
    )


def _list_context(form: NewPromptForm) -> dict[str, object]:
    templates = PromptTemplate.objects.annotate(
        n_versions=Count("versions"), last_saved=Max("versions__created_at")
    ).order_by("name")
    return {"templates": templates, "form": form, "imported": [], "problems": []}


@require(Action.MANAGE_STUDIES)
def prompt(request: AuthenticatedHttpRequest, prompt_id: int) -> HttpResponse:
    template = get_object_or_404(PromptTemplate, pk=prompt_id)
    judge_errors = TriageResolution.objects.filter(
        kind=TriageResolution.Kind.JUDGE_ERROR
    ).select_related("criterion_version__criterion", "run")
    versions = list(
        template.versions.select_related("created_by")
        .annotate(n_runs=Count("runs"))
        .prefetch_related(Prefetch("notes", queryset=judge_errors, to_attr="judge_errors"))
        .order_by("-number")
    )
    latest = versions[0] if versions else None
    initial = {"text": latest.text, "style": latest.style} if latest else {}
    form = PromptForm(request.POST or None, initial=initial)
    saved = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            saved = prompts.save_version(
                template, data["text"], style=data["style"], note=data["note"], by=request.user
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            return redirect_to(request, reverse("judging:prompt", args=[template.pk]))
    studies = Study.objects.order_by("-created_at", "pk")
    context = {
        "template": template,
        "versions": versions,
        "form": form,
        "saved": saved,
        "studies": studies,
        "preview": _preview(latest.text if latest else "", None),
        "slots": ["{{" + slot + "}}" for slot in SLOTS],
        "context_slot": "{{context.cefr_level}}",
        "response_slot": "{{response}}",
    }
    status = 422 if form.is_bound and not form.is_valid() else 200
    return render_page(request, PAGE, context, fragment="editor", status=status)


@require(Action.MANAGE_STUDIES)
@require_POST
def prompt_preview(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The text being written, filled on the first unit of the chosen study (htmx, as typed)."""
    text = request.POST.get("text", "")
    study_id = request.POST.get("study") or ""
    study = get_object_or_404(Study, pk=study_id) if study_id.isdigit() else None
    return render(request, f"{PAGE}#preview", {"preview": _preview(text, study)})


def _preview(text: str, study: Study | None) -> dict[str, object]:
    if (too_long := prompt_too_long(text)) is not None:  # neither checked nor filled
        return {"problems": [too_long], "text": "", "missing": "", "more": 0}
    problems = [message_text(problem) for problem in template_problems(text)]
    try:
        filled = preview(text, study)
    except RunNotPossible as error:
        return {"problems": problems, "text": "", "missing": str(error), "more": 0}
    # A slot written many times fills as many copies of a response: show the beginning.
    most = PREVIEW_FACTOR * settings.JUDGE_PROMPT_MAX_CHARS
    more = max(len(filled) - most, 0)
    return {"problems": problems, "text": filled[:most], "missing": "", "more": more}


@require(Action.MANAGE_STUDIES)
def prompt_download(request: AuthenticatedHttpRequest, version_id: int) -> HttpResponse:
    """One version as a prompt file (`<name>.md`)."""
    version = get_object_or_404(PromptVersion.objects.select_related("template"), pk=version_id)
    name, content = prompt_files.version_file(version)
    return _attachment(content.encode("utf-8"), name, "text/markdown; charset=utf-8")


@require(Action.MANAGE_STUDIES)
def prompts_download(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Every version of every prompt, as `prompts/<name>/v<number>.md` in a ZIP archive."""
    return _attachment(
        prompt_files.zip_of(prompt_files.all_files()), "prompts.zip", "application/zip"
    )


def _attachment(content: bytes, name: str, kind: str) -> HttpResponse:
    response = HttpResponse(content, content_type=kind)
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response


@require(Action.MANAGE_STUDIES)
@require_POST
def prompts_upload(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Prompt files (.md, or .zip archives of them) imported all or nothing: the fragment
    lists what each file became, or every problem."""
    uploads = request.FILES.getlist("files")
    imported: list[prompt_files.Imported] = []
    problems: list[str] = []
    try:
        files: list[tuple[str, bytes]] = []
        left = prompt_files.MAX_UPLOAD_BYTES  # for the files together, as for an archive
        for upload in uploads:
            name = upload.name or "-"
            left -= upload.size or 0
            if left < 0:
                raise prompt_files.PromptFilesRefused(
                    [
                        Problem(
                            name,
                            None,
                            None,
                            gettext_noop("the files uploaded together pass 32 MiB here"),
                        )
                    ]
                )
            files += prompt_files.unpacked(name, upload.read())
        imported = prompt_files.import_prompt_files(files, by=request.user)
    except prompt_files.PromptFilesRefused as refused:
        problems = refused.messages
    context = _list_context(NewPromptForm()) | {"imported": imported, "problems": problems}
    status = 422 if problems else 200
    return render_page(request, LIST_PAGE, context, fragment="upload-prompts", status=status)
