"""The offline grading page of a study: download a workbook, upload it filled (read and recorded
by the background worker, never in the request)."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import load_workbook

from accounts.roles import Role
from core.formats import offline_workbook
from grading import services
from grading.models import Assignment, Grade
from interchange.models import ImportJob
from tests import factories
from tests.interchange.test_offline_import import fill

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotator(make_user):
    return make_user(Role.ANNOTATOR, "ann")


@pytest.fixture
def study(annotator):
    made = factories.study([annotator], responses=2, overlap=1)
    services.assign_study(made)
    return made


def download(client, study, **params):
    response = client.get(reverse("interchange:offline_workbook", args=[study.pk]), params)
    assert response.status_code == 200
    return b"".join(response.streaming_content)


@pytest.fixture(autouse=True)
def imports_root(settings, tmp_path):
    settings.IMPORTS_ROOT = tmp_path / "imports"


@pytest.fixture
def worker(settings, django_capture_on_commit_callbacks):
    """Jobs run as soon as the upload commits (the background worker, in this process)."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    return django_capture_on_commit_callbacks


def upload(client, study, content, annotator="ann", name="filled.xlsx", worker=None, **fields):
    data = {"annotator": annotator, "file": SimpleUploadedFile(name, content)} | fields
    url = reverse("interchange:offline", args=[study.pk])
    if worker is None:
        return client.post(url, data)
    with worker(execute=True):
        return client.post(url, data)


def filled(tmp_path, content, **options):
    path = tmp_path / "work.xlsx"
    path.write_bytes(content)
    fill(path, **options)
    return path.read_bytes()


def test_the_page_lists_each_annotators_workbooks(study, client_as):
    page = client_as(Role.MAINTAINER).get(reverse("interchange:offline", args=[study.pk]))
    assert page.status_code == 200
    url = reverse("interchange:offline_workbook", args=[study.pk])
    assert f"{url}?annotator=ann" in page.content.decode()


def test_a_downloaded_workbook_filled_and_uploaded_is_recorded_as_the_annotator(
    study, annotator, client_as, tmp_path, worker
):
    client = client_as(Role.MAINTAINER)
    content = download(client, study, annotator="ann")
    assert load_workbook(io.BytesIO(content))["_meta"]["B2"].value == "ann"
    response = upload(client, study, filled(tmp_path, content), submit="on", worker=worker)
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response.url == reverse("interchange:job", args=[job.pk])
    assert (job.kind, job.status, job.study, job.annotator) == (
        "offline",
        "succeeded",
        study,
        annotator,
    )
    verdicts = Grade.objects.filter(assignment__annotator=annotator).values_list(
        "verdict", flat=True
    )
    assert sorted(verdicts) == ["fail"] * 2 + ["pass"] * 4  # the two penalties Absent
    assert set(Assignment.objects.values_list("status", flat=True)) == {"submitted"}
    page = client.get(response.url).content.decode()
    assert "answers: 6 changed, 0 unchanged; ratings: 4 changed" in page
    assert "filled.xlsx for “" in page and "recorded as ann" in page


def test_the_upload_is_not_read_in_the_request(study, client_as, tmp_path, monkeypatch):
    """With the database backend the job waits for the worker: the request only stores it."""

    def read_in_request(*args, **kwargs):
        raise AssertionError("the workbook was read in the web request")

    monkeypatch.setattr(offline_workbook, "load_workbook", read_in_request)
    client = client_as(Role.MAINTAINER)
    response = upload(client, study, filled(tmp_path, download(client, study, annotator="ann")))
    job = ImportJob.objects.get()
    assert response.status_code == 302 and job.status == ImportJob.Status.QUEUED
    assert not Grade.objects.exists()


def test_a_tampered_upload_lists_its_problems_and_records_nothing(
    study, client_as, tmp_path, worker
):
    client = client_as(Role.MAINTAINER)
    content = filled(tmp_path, download(client, study, annotator="ann"))
    workbook = load_workbook(io.BytesIO(content))
    workbook["Grading"]["B3"] = "999999"
    workbook["Grading"]["F4"] = "maybe"
    out = io.BytesIO()
    workbook.save(out)
    response = upload(client, study, out.getvalue(), worker=worker)
    assert ImportJob.objects.get().status == ImportJob.Status.REFUSED
    page = client.get(response.url).content.decode()
    assert "Nothing was imported" in page
    assert "filled.xlsx: row 4: field &#x27;verdict&#x27;: &#x27;maybe&#x27; is not Pass" in page
    assert "the signature does not match" in page
    assert not Grade.objects.exists()


def test_a_file_that_is_not_a_workbook_is_refused_by_the_form(study, client_as):
    response = upload(client_as(Role.ADMIN), study, b"plain text", name="notes.xlsx")
    assert response.status_code == 200
    assert "Upload the .xlsx workbook downloaded from this page." in response.content.decode()


def test_the_download_without_an_annotator_goes_to_the_page(study, client_as):
    client = client_as(Role.MAINTAINER)
    response = client.get(reverse("interchange:offline_workbook", args=[study.pk]))
    assert response.url == reverse("interchange:offline", args=[study.pk])


def test_someone_without_work_in_the_study_has_no_workbook(study, client_as, make_user):
    make_user(Role.ANNOTATOR, "stranger")
    url = reverse("interchange:offline_workbook", args=[study.pk])
    assert client_as(Role.MAINTAINER).get(url, {"annotator": "stranger"}).status_code == 404


def test_all_includes_the_submitted_responses(study, annotator, client_as):
    first = Assignment.objects.order_by("position").first()
    factories.complete(first, annotator)
    services.submit(first, by=first.annotator)
    client = client_as(Role.MAINTAINER)
    everything = load_workbook(io.BytesIO(download(client, study, annotator="ann", all="1")))
    unfinished = load_workbook(io.BytesIO(download(client, study, annotator="ann")))
    assert everything["Grading"].max_row == 2 * unfinished["Grading"].max_row - 1
    assert everything["Grading"]["F3"].value == "Pass"  # the answers given are filled in


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.AUTHOR, Role.VIEWER])
def test_only_maintainers_and_admins_use_the_offline_pages(study, client_as, role, tmp_path):
    client = client_as(role)
    page = reverse("interchange:offline", args=[study.pk])
    assert client.get(page).status_code == 403
    url = reverse("interchange:offline_workbook", args=[study.pk])
    assert client.get(url, {"annotator": "ann"}).status_code == 403
    assert upload(client, study, b"PK").status_code == 403
    assert not Grade.objects.exists()


def test_a_finished_upload_is_summed_up_in_the_readers_language(study, client_as, tmp_path, worker):
    """The worker runs in English; a Spanish reader reads what it did in Spanish."""
    client = client_as(Role.MAINTAINER)
    content = download(client, study, annotator="ann")
    first_item_rows = {3, 4, 5, 6, 7}  # the first response's criteria and questions
    answered = filled(tmp_path, content, only=lambda kind, row: row in first_item_rows)
    response = upload(client, study, answered, submit="on", worker=worker)
    assert ImportJob.objects.get().status == ImportJob.Status.SUCCEEDED
    spanish = client.get(response.url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert (
        "respuestas: 3 modificadas, 0 sin cambios; valoraciones: 2 modificadas, 0 sin cambios; "
        "1 enviadas; 1 incompletas, y por tanto sin enviar"
    ) in spanish
    english = client.get(response.url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "1 submitted; 1 not complete, so not submitted" in english


def test_a_refusal_of_the_grading_rules_is_read_in_the_readers_language(
    study, annotator, client_as, tmp_path, worker
):
    """save_grade refuses a Fail without its rationale on a submitted response, naming the
    answer: the job keeps the message's template and values, so the Spanish reader reads it
    all in Spanish, the verdict's label included."""
    _, second = Assignment.objects.filter(annotator=annotator).order_by("position")
    for version in factories.rubric_of(second):
        verdict = "fail" if version.is_penalty else "pass"
        services.save_grade(second, version.pk, verdict=verdict, rationale="", by=annotator)
    for question in study.likert_items.all():
        services.save_likert(second, question.pk, 3, by=annotator)
    services.submit(second, by=annotator)
    client = client_as(Role.MAINTAINER)
    content = download(client, study, annotator="ann", all="1")
    response = upload(client, study, filled(tmp_path, content, verdict="Fail"), worker=worker)
    assert ImportJob.objects.get().status == ImportJob.Status.REFUSED
    spanish = client.get(response.url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert (
        "campo &#x27;verdict&#x27;: Esta calificación está enviada: escriba la justificación "
        "antes de elegir Incumple."
    ) in spanish
    assert "write the rationale" not in spanish


def test_a_workbook_is_in_its_annotators_language_and_read_back_in_it(
    study, annotator, client_as, tmp_path, worker
):
    annotator.language = "es"
    annotator.save(update_fields=["language"])
    client = client_as(Role.MAINTAINER)  # an English-speaking maintainer downloads it
    content = download(client, study, annotator="ann")
    grading = load_workbook(io.BytesIO(content))["Grading"]
    assert [cell.value for cell in grading[1]][2:] == [
        "Elemento / código",
        "Tarea / criterio",
        "Respuesta / orientaciones",
        "Veredicto",
        "Justificación",
    ]
    codes = [row[2].value for row in grading.iter_rows(min_row=2)]
    assert codes[0] == "Elemento 1" and sum("(penalización)" in str(c) for c in codes) == 2
    lists = {v.formula1 for v in grading.data_validations.dataValidation}
    assert {'"Cumple,Incumple,No aplica"', '"Presente,Ausente,No aplica"'} <= lists
    path = tmp_path / "work.xlsx"
    path.write_bytes(content)
    workbook = load_workbook(path)
    sheet = workbook["Grading"]
    for row in range(2, sheet.max_row + 1):
        criterion_id = sheet.cell(row, 2).value
        if not criterion_id:
            continue
        if criterion_id.startswith("likert:"):
            sheet.cell(row, 6).value = 4
        else:
            penalty = "(penalización)" in sheet.cell(row, 3).value
            sheet.cell(row, 6).value = "Ausente" if penalty else "Cumple"
    workbook.save(path)
    upload(client, study, path.read_bytes(), submit="on", worker=worker)
    verdicts = Grade.objects.filter(assignment__annotator=annotator).values_list(
        "verdict", flat=True
    )
    assert sorted(verdicts) == ["fail"] * 2 + ["pass"] * 4  # the two penalties Absent
