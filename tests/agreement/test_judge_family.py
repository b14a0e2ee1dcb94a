"""An imported run's model family is named on its judge page by a maintainer (self-preference
needs it); a run made here keeps its configuration's family."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from judging.models import JudgeConfig, JudgeRun
from judging.services import default_prompt
from tests.factories import judge_run, study

pytestmark = pytest.mark.django_db

NO_FAMILY = "This run names no model family"


@pytest.fixture
def found(make_user):
    return study([make_user(Role.ANNOTATOR) for _ in range(2)], responses=1, overlap=2)


def post_family(client, found, run, family):
    url = reverse("judging:calibration_family", args=[found.pk, run.pk])
    return client.post(url, {"model_family": family}, follow=True)


def test_a_maintainer_names_an_imported_runs_family_and_the_page_measures_with_it(found, client_as):
    run = judge_run(found, "v1", fails_universal=False)
    client = client_as(Role.MAINTAINER)
    page = client.get(reverse("judging:calibration", args=[found.pk, run.pk])).content.decode()
    assert NO_FAMILY in page and 'name="model_family"' in page

    response = post_family(client, found, run, "  llama ")

    assert response.status_code == 200
    run.refresh_from_db()
    assert run.model_family == "llama"
    body = response.content.decode()
    assert NO_FAMILY not in body
    assert "(llama)" in body  # the study's responses are of another family: too few to measure
    event = AuditEvent.objects.for_object(run).get(kind=AuditEvent.Kind.UPDATED)
    assert event.changes == {"model_family": ["", "llama"]}


def test_a_run_made_from_a_configuration_keeps_the_configurations_family(found, client_as):
    config = JudgeConfig.objects.create(
        name="local", model="openai-api/local/m", prompt=default_prompt(), model_family="qwen"
    )
    run = JudgeRun.objects.create(
        judge_model=config.model, config=config, model_family="qwen", parameters={"study": found.pk}
    )
    client = client_as(Role.MAINTAINER)
    page = client.get(reverse("judging:calibration", args=[found.pk, run.pk])).content.decode()
    assert 'name="model_family"' not in page

    body = post_family(client, found, run, "llama").content.decode()

    run.refresh_from_db()
    assert run.model_family == "qwen"
    assert "comes from its judge configuration" in body
    assert not AuditEvent.objects.for_object(run).filter(kind=AuditEvent.Kind.UPDATED)


def test_readers_see_the_family_but_no_form(found, client_as):
    run = judge_run(found, "v1", fails_universal=False)
    client = client_as(Role.VIEWER)
    page = client.get(reverse("judging:calibration", args=[found.pk, run.pk])).content.decode()
    assert NO_FAMILY in page
    assert 'name="model_family"' not in page
    assert post_family(client, found, run, "llama").status_code == 403
    run.refresh_from_db()
    assert run.model_family == ""
