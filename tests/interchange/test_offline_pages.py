"""The offline grading page of a study: download a workbook, upload it filled."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import load_workbook

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Grade
from tests.grading import factories
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


def upload(client, study, content, annotator="ann", name="filled.xlsx", **fields):
    data = {"annotator": annotator, "file": SimpleUploadedFile(name, content)} | fields
    return client.post(reverse("interchange:offline", args=[study.pk]), data)


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
    study, annotator, client_as, tmp_path
):
    client = client_as(Role.MAINTAINER)
    content = download(client, study, annotator="ann")
    assert load_workbook(io.BytesIO(content))["_meta"]["B2"].value == "ann"
    response = upload(client, study, filled(tmp_path, content), submit="on")
    assert response.status_code == 302
    assert Grade.objects.filter(assignment__annotator=annotator, verdict="pass").count() == 6
    assert set(Assignment.objects.values_list("status", flat=True)) == {"submitted"}
    page = client.get(response.url).content.decode()
    assert "ann: answers: 6 changed, 0 unchanged; ratings: 4 changed" in page


def test_a_tampered_upload_lists_its_problems_and_records_nothing(study, client_as, tmp_path):
    client = client_as(Role.MAINTAINER)
    content = filled(tmp_path, download(client, study, annotator="ann"))
    workbook = load_workbook(io.BytesIO(content))
    workbook["Grading"]["B3"] = "999999"
    workbook["Grading"]["F4"] = "maybe"
    out = io.BytesIO()
    workbook.save(out)
    response = upload(client, study, out.getvalue())
    assert response.status_code == 200
    page = response.content.decode()
    assert "Nothing was recorded" in page
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
