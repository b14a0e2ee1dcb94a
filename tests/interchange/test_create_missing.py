"""Creating the sub-competencies a benchmark names that the framework lacks: under the
competency their code names, as placeholders, in the history, listed in the report, and only
when the whole import goes through."""

import io
from dataclasses import replace
from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import translation

from accounts.roles import Role
from audit import editing
from audit.models import AuditEvent
from core.formats.synthetic import synthetic_tasks
from interchange.importers import import_l2bench
from interchange.models import ImportJob
from rubrics.models import Task
from taxonomy.models import SubCompetency
from tests.factories import benchmark_folder, make_job
from tests.interchange.db_helpers import row_counts
from tests.interchange.test_import_page import immediate_jobs, upload, zipped  # noqa: F401

pytestmark = pytest.mark.django_db


def records(*subs: str):
    return synthetic_tasks(4, list(subs))


def placeholders() -> dict[str, tuple[str, str]]:
    """The placeholders by code: their competency's code and how they read (in English)."""
    return {
        sub.code: (sub.competency.code, str(sub))
        for sub in SubCompetency.objects.filter(placeholder=True).select_related("competency")
    }


def test_without_the_option_an_unknown_sub_competency_is_refused_with_the_way_forward(
    tmp_path, starter_framework
):
    report = import_l2bench(benchmark_folder(tmp_path, records("02a", "02x")), starter_framework)
    assert not report.ok
    assert any(
        "unknown sub-competency '02x'" in line and "creating the missing sub-competencies" in line
        for line in report.problem_lines()
    )
    assert placeholders() == {}


def test_missing_sub_competencies_are_created_under_their_competency_as_placeholders(
    tmp_path, starter_framework, make_user
):
    maintainer = make_user(Role.MAINTAINER)
    folder = benchmark_folder(tmp_path, records("02a", "02x", "11q"))
    report = import_l2bench(folder, starter_framework, create_missing=True, by=maintainer)
    assert report.ok, report.problem_lines()
    assert placeholders() == {
        "02x": ("02", "02x (placeholder: to be named)"),
        "11q": ("11", "11q (placeholder: to be named)"),
    }
    assert str(report.counts["sub-competencies"]) == "2 created, 0 updated, 0 unchanged"
    assert report.notes == [
        "Created as placeholders to be named (each with its competency): 02x (02), 11q (11)."
    ]
    assert Task.objects.filter(sub_competency__code="02x").exists()
    events = AuditEvent.objects.filter(
        content_type=ContentType.objects.get_for_model(SubCompetency), kind="created"
    )
    assert {(e.object_repr.split()[0], e.actor) for e in events} == {
        ("02x", maintainer),
        ("11q", maintainer),
    }
    again = import_l2bench(folder, starter_framework, create_missing=True)
    assert str(again.counts["sub-competencies"]) == "0 created, 0 updated, 0 unchanged"


def test_a_refused_import_creates_no_sub_competency(tmp_path, starter_framework):
    tasks = records("02a", "02x")
    tasks[0] = replace(tasks[0], reference_answer=" ")  # a problem elsewhere in the file
    before = row_counts(), SubCompetency.objects.count()
    report = import_l2bench(
        benchmark_folder(tmp_path, tasks), starter_framework, create_missing=True
    )
    assert not report.ok
    assert (row_counts(), SubCompetency.objects.count()) == before


def test_a_dry_run_counts_the_sub_competencies_it_would_create_and_creates_none(
    tmp_path, starter_framework
):
    folder = benchmark_folder(tmp_path, records("02x"))
    report = import_l2bench(folder, starter_framework, create_missing=True, dry_run=True)
    assert report.ok, report.problem_lines()
    assert report.counts["sub-competencies"].created == 1
    assert placeholders() == {}


@pytest.mark.parametrize("value", ["99x", "A brand new skill", "02-x"])
def test_only_a_code_under_an_existing_competency_is_created(tmp_path, starter_framework, value):
    tasks = [replace(t, competency=value, consensus_criteria=()) for t in records("02a")]
    report = import_l2bench(
        benchmark_folder(tmp_path, tasks), starter_framework, create_missing=True
    )
    assert any(
        f"unknown sub-competency '{value}'" in line and "takes a code" in line
        for line in report.problem_lines()
    )
    assert placeholders() == {}


def test_the_command_creates_them_with_create_missing_and_says_so(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path, records("02x"))
    refused = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_l2bench", str(folder), stdout=io.StringIO(), stderr=refused)
    assert "run the import again with --create-missing" in refused.getvalue()
    out, err = io.StringIO(), io.StringIO()
    call_command("import_l2bench", str(folder), "--create-missing", stdout=out, stderr=err)
    assert "sub-competencies: 1 created" in out.getvalue()
    assert (
        "Created as placeholders to be named (each with its competency): 02x (02)" in err.getvalue()
    )


def test_the_upload_page_checkbox_creates_them_and_the_job_lists_them(
    client_as, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    client = client_as(Role.MAINTAINER)
    content = zipped(benchmark_folder(tmp_path / "b", records("02x")))
    response = upload(
        client,
        "benchmark",
        "bench.zip",
        content,
        starter_framework,
        django_capture_on_commit_callbacks,
        create_missing="on",
    )
    job = ImportJob.objects.get()
    assert job.status == "succeeded", job.problems
    page = client.get(response.url).content.decode()
    assert "Created as placeholders to be named (each with its competency): 02x (02)" in page
    spanish = client.get(response.url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert (
        "Creadas como provisionales, a falta de nombre (cada una con su competencia): 02x (02)"
        in spanish
    )
    assert placeholders() == {"02x": ("02", "02x (placeholder: to be named)")}


def test_the_checkbox_is_refused_for_an_import_that_is_not_a_benchmark(
    client_as, starter_framework
):
    page = client_as(Role.MAINTAINER).get(reverse("interchange:index")).content.decode()
    assert 'name="create_missing"' in page
    response = client_as(Role.MAINTAINER).post(
        reverse("interchange:index"),
        {"kind": "responses", "framework": starter_framework.pk, "create_missing": "on"},
    )
    assert "Only a benchmark import creates sub-competencies." in response.content.decode()
    assert not ImportJob.objects.exists()


def test_a_refused_benchmark_offers_to_import_it_again_creating_them_and_links_the_taxonomy(
    client_as, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    client = client_as(Role.MAINTAINER)
    content = zipped(benchmark_folder(tmp_path / "b", records("02a", "02x", "11q")))
    args = ("benchmark", "bench.zip", content, starter_framework)
    response = upload(client, *args, django_capture_on_commit_callbacks)
    refused = ImportJob.objects.get()
    assert refused.status == ImportJob.Status.REFUSED
    page = client.get(response.url).content.decode()
    assert "Import again, creating the missing sub-competencies" in page
    assert "--create-missing" not in page
    again = reverse("interchange:job_again", args=[refused.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(again)
    job = ImportJob.objects.exclude(pk=refused.pk).get()
    assert response.url == reverse("interchange:job", args=[job.pk])
    assert (job.status, job.create_missing, job.dry_run) == ("succeeded", True, False)
    assert job.original_name == "bench.zip" and job.file.name != refused.file.name
    assert set(placeholders()) == {"02x", "11q"}
    page = client.get(response.url).content.decode()
    # The link goes to the first of them on the taxonomy page, to be named.
    first = SubCompetency.objects.filter(placeholder=True).first()
    taxonomy = reverse("taxonomy:competencies", args=[starter_framework.code])
    link = f'<a href="{taxonomy}#sub-{first.pk}" id="name-placeholders">'
    assert f"{link}Name the 2 new sub-competencies" in page
    assert f'id="sub-{first.pk}"' in client.get(taxonomy).content.decode()
    assert "Import again" not in page and "Import it now" not in page
    # A job that went through for real has nothing to do again: no third import.
    assert client.post(reverse("interchange:job_again", args=[job.pk])).url == response.url
    assert ImportJob.objects.count() == 2


def test_a_dry_run_that_went_through_is_imported_for_real_without_uploading_it_again(
    client_as, starter_framework, tmp_path, django_capture_on_commit_callbacks
):
    client = client_as(Role.MAINTAINER)
    content = zipped(benchmark_folder(tmp_path / "b", records("02a")))
    args = ("benchmark", "bench.zip", content, starter_framework)
    response = upload(client, *args, django_capture_on_commit_callbacks, dry_run="on")
    checked = ImportJob.objects.get()
    assert (checked.status, checked.dry_run, Task.objects.count()) == ("succeeded", True, 0)
    page = client.get(response.url).content.decode()
    assert "Import it now" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("interchange:job_again", args=[checked.pk]))
    job = ImportJob.objects.exclude(pk=checked.pk).get()
    assert (job.status, job.dry_run) == ("succeeded", False)
    assert Task.objects.count() == 4
    assert "Import it now" not in client.get(response.url).content.decode()


def test_only_a_maintainer_imports_a_file_again(client_as, starter_framework):
    job = make_job(starter_framework, dry_run=True)
    answer = client_as(Role.AUTHOR).post(reverse("interchange:job_again", args=[job.pk]))
    assert answer.status_code == 403
    assert ImportJob.objects.count() == 1


def test_a_placeholder_stores_no_english_and_reads_in_the_readers_language(
    tmp_path, starter_framework, client_as
):
    folder = benchmark_folder(tmp_path, records("02x"))
    assert import_l2bench(folder, starter_framework, create_missing=True).ok
    sub = SubCompetency.objects.get(code="02x")
    assert (sub.name, sub.description, sub.placeholder) == ("02x", "", True)
    with translation.override("es"):
        assert str(sub) == "02x (provisional: a falta de nombre)"
    page = reverse("taxonomy:competencies", args=[starter_framework.code])
    spanish = client_as(Role.MAINTAINER).get(page, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Creada por una importación de benchmark porque el archivo la nombra" in spanish
    assert "Created by a benchmark import" not in spanish


def test_naming_a_placeholder_makes_it_a_sub_competency_like_any_other(
    tmp_path, starter_framework, make_user
):
    folder = benchmark_folder(tmp_path, records("02x"))
    assert import_l2bench(folder, starter_framework, create_missing=True).ok
    sub = SubCompetency.objects.get(code="02x")
    named = editing.update(sub, {"name": "Register"}, sub.revision, make_user(Role.MAINTAINER))
    assert not named.placeholder and str(named) == "02x Register"
    assert not SubCompetency.objects.get(code="02x").placeholder


def test_the_migration_marks_the_placeholders_made_before_with_english_text(starter_framework):
    migration = import_module("taxonomy.migrations.0002_sub_competency_placeholder")
    competency = starter_framework.competencies.get(code="02")
    old = SubCompetency.objects.create(
        competency=competency,
        code="02x",
        name="02x (placeholder: to be named)",
        description=migration.OLD_NOTE,
    )
    named = SubCompetency.objects.create(
        competency=competency, code="02y", name="Register (placeholder: to be named)"
    )
    migration.mark_placeholders(apps, None)
    old.refresh_from_db()
    named.refresh_from_db()
    assert (old.name, old.description, old.placeholder) == ("02x", "", True)
    assert not named.placeholder
