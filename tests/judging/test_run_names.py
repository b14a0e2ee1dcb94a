"""One human name per judge run: its configuration's name and version, kept from the "Save as"
field of the run form, used by the run list, the run page, the API and the compare page; and
the run page's parameters by their names, not their keys."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from judging.models import JudgeConfig, JudgeRun, PromptVersion
from judging.runs import start_run
from judging.services import save_config
from tests.llm_server import model_name

pytestmark = pytest.mark.django_db
JUDGE = model_name("judge-named")


@pytest.fixture
def strict(db) -> JudgeConfig:
    prompt = PromptVersion.objects.get(template__name="critique-then-verdict")
    return save_config(name="strict-sonnet", model=JUDGE, prompt=prompt, epochs=2, by=None)


def test_a_run_is_named_by_its_configuration_and_version(study, strict):
    first = start_run(study, config=strict, limit=1, by=None, enqueue=False)
    second = start_run(study, config=strict, limit=1, by=None, enqueue=False)
    assert (first.name, second.name) == ("strict-sonnet v1", "strict-sonnet v2")
    assert str(second) == second.display_name == "strict-sonnet v2"


def test_an_imported_run_is_named_by_its_model_and_prompt_and_the_start_of_its_id():
    run = JudgeRun.objects.create(
        judge_model="openai/gpt-4.1", prompt_version="strict@2", run_id="44AskUmAAZeMqACqZwfA7r"
    )
    assert str(run) == "openai/gpt-4.1 · strict@2 · 44AskUmA"


def test_the_save_as_name_typed_with_a_saved_configuration_chosen_is_kept(
    study, strict, maintainer
):
    url = reverse("judging:judge", args=[study.pk])
    # Without JavaScript: only the configuration chosen and a new name typed.
    answer = maintainer.post(
        url, {"config": strict.pk, "name": "strict-trial", "epochs": 1, "max_connections": 10}
    )
    assert answer.status_code == 302
    kept = JudgeConfig.objects.get(name="strict-trial")
    assert (kept.model, kept.prompt, kept.epochs) == (strict.model, strict.prompt, 2)
    run = JudgeRun.objects.get()
    assert (run.config, run.name) == (kept, "strict-trial v1")
    # Filled by the form (the same values) and renamed: kept too, and the same configuration.
    values = {"model": JUDGE, "prompt": strict.prompt_id, "epochs": 2, "max_connections": 10}
    maintainer.post(url, values | {"config": strict.pk, "name": "strict-trial"})
    assert list(JudgeRun.objects.order_by("pk").values_list("name", flat=True)) == [
        "strict-trial v1",
        "strict-trial v2",
    ]
    assert JudgeConfig.objects.count() == 2


def test_the_run_list_and_the_run_page_name_the_run(study, strict, maintainer):
    run = start_run(study, config=strict, limit=3, by=None, enqueue=False)
    listed = maintainer.get(reverse("judging:judge", args=[study.pk])).content.decode()
    assert ">strict-sonnet v1</a>" in listed and f">#{run.pk}<" not in listed
    page = maintainer.get(reverse("judging:run", args=[study.pk, run.pk])).content.decode()
    assert "<h1>Judge run strict-sonnet v1 on" in page


def test_the_run_page_shows_readable_parameter_names(study, strict, maintainer):
    run = start_run(study, config=strict, limit=3, by=None, enqueue=False)
    page = maintainer.get(reverse("judging:run", args=[study.pk, run.pk])).content.decode()
    for label, value in [
        ("Temperature", "0.0"),
        ("Epochs", "2"),
        ("Maximum connections", "10"),
        ("Retries of an unreadable answer", "3"),
        ("Retry temperature", "0.2"),
        ("Limit", "3"),
    ]:
        assert f"<dt>{label}</dt><dd>{value}</dd>" in page
    for key in ("max_connections", "parse_retries", "retry_temperature", "Study"):
        assert key not in page.split("<h1>")[1].split('id="run-progress"')[0]


def test_the_api_gives_the_run_its_name(study, strict, make_user):
    run = start_run(study, config=strict, limit=1, by=None, enqueue=False)
    _, key = ApiToken.issue(make_user(Role.MAINTAINER), "names")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    found = api.get(reverse("api:judgerun-detail", args=[run.pk])).json()
    assert found["name"] == "strict-sonnet v1"
