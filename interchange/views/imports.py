"""The import page: upload a file, then watch its job until it is done."""

import secrets
from pathlib import Path

from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from grading.models import Study
from interchange import jobs
from interchange.forms import ImportForm
from interchange.models import ImportJob
from jobs.models import Job
from l2annot.htmx import render_page
from taxonomy.models import Framework


@require(Action.IMPORT_DATA)
@require_http_methods(["GET", "POST"])
def index(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            job = ImportJob(
                kind=form.cleaned_data["kind"],
                framework=form.cleaned_data["framework"],
                dry_run=form.cleaned_data["dry_run"],
                create_missing=form.cleaned_data["create_missing"],
                original_name=Path(form.cleaned_data["file"].name).name[:255],
                token=secrets.token_hex(16),
                created_by=request.user,
                job=Job.objects.create(kind=Job.Kind.IMPORT, created_by=request.user),
            )
            job.file.save("upload", form.cleaned_data["file"], save=False)
            job.save()
            jobs.enqueue(job)
        return redirect("interchange:job", pk=job.pk)
    jobs.fail_abandoned_jobs()
    recent = ImportJob.objects.select_related("created_by")[:20]
    frameworks = Framework.objects.all()
    studies = Study.objects.all()
    return render(
        request,
        "interchange/index.html",
        {"form": form, "jobs": recent, "frameworks": frameworks, "studies": studies},
    )


@require(Action.IMPORT_DATA)
def job(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    jobs.fail_abandoned_jobs()  # a job whose worker died ends failed, not "running" for ever
    found = get_object_or_404(
        ImportJob.objects.select_related("framework", "study", "annotator", "created_by"), pk=pk
    )
    return render_page(request, "interchange/job.html", {"job": found}, fragment="job-status")


@require(Action.IMPORT_DATA)
@require_POST
def again(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The job's file imported again, without uploading it again: for real after a dry run
    that went through, or creating the missing sub-competencies after a refusal."""
    found = get_object_or_404(ImportJob.objects.select_related("framework"), pk=pk)
    if found.can_run_for_real:
        dry_run, create_missing = False, found.create_missing
    elif found.can_create_missing:
        dry_run, create_missing = found.dry_run, True
    else:
        return redirect("interchange:job", pk=found.pk)  # nothing to do again: its page says
    with transaction.atomic():
        job = jobs.import_again(
            found, by=request.user, dry_run=dry_run, create_missing=create_missing
        )
    return redirect("interchange:job", pk=job.pk)
