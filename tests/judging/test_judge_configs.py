"""Named judge configurations: the "Run the judge" form and `run_judge --config NAME` save one
and reuse it; the run takes its configuration's parameters and model family."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from judging.models import JudgeConfig, JudgeRun, PromptVersion
from tests.conftest import htmx
from tests.llm_server import model_name

pytestmark = pytest.mark.django_db
JUDGE = model_name("judge-named")


def form(prompt: PromptVersion, **values: object) -> dict[str, object]:
    return {
        "model": JUDGE, "prompt": prompt.pk, "model_family": "loopback", "temperature": 0.0,
        "epochs": 2, "max_connections": 4, "parse_retries": 1, "retry_temperature": 0.5,
        "limit": 1,
    } | values  # fmt: skip


def test_the_form_saves_a_named_configuration_and_the_run_takes_its_values(study, maintainer):
    prompt = PromptVersion.objects.get(template__name="critique-then-verdict")
    url = reverse("judging:judge", args=[study.pk])
    answer = maintainer.post(url, form(prompt, name="critique-loopback"))
    assert answer.status_code == 302
    config = JudgeConfig.objects.get(name="critique-loopback")
    assert (config.model, config.prompt, config.model_family) == (JUDGE, prompt, "loopback")
    assert (config.epochs, config.parse_retries, config.retry_temperature) == (2, 1, 0.5)
    run = JudgeRun.objects.get()
    assert (run.config, run.model_family, run.calls_total) == (config, "loopback", 2)
    assert run.parameters["parse_retries"] == 1 and run.parameters["limit"] == 1
    assert AuditEvent.objects.filter(object_repr="critique-loopback", kind="created").exists()


def test_choosing_a_saved_configuration_fills_the_form_and_runs_it_unchanged(
    study, maintainer, client_as
):
    prompt = PromptVersion.objects.get(template__name="critique-then-verdict")
    url = reverse("judging:judge", args=[study.pk])
    maintainer.post(url, form(prompt, name="critique-loopback"))
    config = JudgeConfig.objects.get(name="critique-loopback")
    filled = htmx(client_as(Role.MAINTAINER)).get(url, {"config": config.pk}).content.decode()
    assert 'id="run-form"' in filled and "<h1>" not in filled  # the form's fragment alone
    assert f'value="{JUDGE}"' in filled and 'value="loopback"' in filled
    assert f'<option value="{prompt.pk}" selected>' in filled
    # Submitted as filled: the same configuration, no new one.
    assert maintainer.post(url, form(prompt, config=config.pk, name=config.name)).status_code == 302
    # Without JavaScript, only the configuration chosen: used as it is.
    assert maintainer.post(url, {"config": config.pk, "epochs": 1, "max_connections": 10})
    assert JudgeConfig.objects.count() == 1
    assert list(JudgeRun.objects.values_list("config", flat=True)) == [config.pk] * 3


def test_changed_values_under_a_saved_name_are_refused_and_under_a_new_name_saved(
    study, maintainer
):
    prompt = PromptVersion.objects.get(template__name="critique-then-verdict")
    url = reverse("judging:judge", args=[study.pk])
    maintainer.post(url, form(prompt, name="critique-loopback"))
    config = JudgeConfig.objects.get()
    refused = maintainer.post(url, form(prompt, name="critique-loopback", epochs=3))
    assert refused.status_code == 422 and b"holds other values" in refused.content
    saved = maintainer.post(url, form(prompt, config=config.pk, name="three-epochs", epochs=3))
    assert saved.status_code == 302
    assert JudgeConfig.objects.get(name="three-epochs").epochs == 3
    assert JudgeConfig.objects.get(name="critique-loopback").epochs == 2  # never changed


def test_a_model_or_a_saved_configuration_is_required(study, maintainer):
    answer = maintainer.post(
        reverse("judging:judge", args=[study.pk]), {"epochs": 1, "max_connections": 1}
    )
    assert answer.status_code == 422 and b"choose a saved configuration" in answer.content


def test_the_command_saves_a_configuration_by_name_and_runs_it_again(study, capsys):
    call_command(
        "run_judge", str(study.pk), "--model", JUDGE, "--config", "cli-judge",
        "--model-family", "loopback", "--epochs", "2", "--limit", "1", "--queue",
    )  # fmt: skip
    call_command("run_judge", str(study.pk), "--config", "cli-judge", "--limit", "1", "--queue")
    config = JudgeConfig.objects.get(name="cli-judge")
    assert (config.model, config.model_family, config.epochs) == (JUDGE, "loopback", 2)
    runs = JudgeRun.objects.order_by("pk")
    assert [run.config for run in runs] == [config, config]
    assert "configuration 'cli-judge'" in capsys.readouterr().out
    with pytest.raises(CommandError, match="holds other values"):
        call_command(
            "run_judge", str(study.pk), "--model", JUDGE, "--config", "cli-judge", "--queue"
        )
    with pytest.raises(CommandError, match="No judge configuration 'nope'"):
        call_command("run_judge", str(study.pk), "--config", "nope", "--queue")
