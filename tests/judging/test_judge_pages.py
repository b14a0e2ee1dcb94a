"""The study's judge page, a run's progress page and the prompt editor (maintainers only)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from judging.models import (
    JudgeRun,
    JudgeVerdict,
    PromptTemplate,
    PromptVersion,
    StatedProbabilities,
)
from judging.runs import start_run
from tests.conftest import htmx
from tests.factories import worker_last_seen
from tests.llm_server import model_name

pytestmark = pytest.mark.django_db
TEXT = "Task: {{task}}\nLevel: {{context.cefr_level}}\n{{response}}\n{{criterion}}\ntrue or false?"


def test_the_judge_page_lists_the_study_runs_in_bounded_queries(
    study, maintainer, django_assert_max_num_queries
):
    for n in range(3):
        start_run(study, model=model_name(f"judge-{n}"), limit=2, by=None, enqueue=False)
    with django_assert_max_num_queries(12):
        page = maintainer.get(reverse("judging:judge", args=[study.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert body.count("reference-guided@1") >= 3 and "Run the judge" in body
    assert "API_KEY" in body and 'type="password"' not in body  # keys are never asked for


def test_running_the_judge_from_the_form_queues_a_run_and_opens_its_page(study, maintainer):
    prompt = PromptVersion.objects.get(template__name="critique-then-verdict")
    answer = maintainer.post(
        reverse("judging:judge", args=[study.pk]),
        {"model": model_name("judge-x"), "prompt": prompt.pk, "epochs": 2, "max_connections": 4,
         "limit": 3},
    )  # fmt: skip
    run = JudgeRun.objects.get()
    assert answer.status_code == 302
    assert answer.url == reverse("judging:run", args=[study.pk, run.pk])
    assert (run.status, run.calls_total, run.prompt, run.config.epochs) == ("queued", 6, prompt, 2)
    page = maintainer.get(answer.url)
    assert 'hx-trigger="every 1s"' in page.content.decode() and b"0 of 6" in page.content


def test_a_model_that_is_not_an_inspect_model_string_is_refused_on_the_form(study, maintainer):
    answer = maintainer.post(
        reverse("judging:judge", args=[study.pk]),
        {"model": "gpt4", "prompt": PromptVersion.objects.first().pk, "epochs": 1,
         "max_connections": 1},
    )  # fmt: skip
    assert answer.status_code == 422 and b"not an Inspect model" in answer.content
    assert not JudgeRun.objects.exists()


def test_a_queued_run_can_be_cancelled_and_run_again(study, maintainer):
    run = start_run(study, model=model_name(), limit=1, by=None, enqueue=False)
    htmx_client = htmx(maintainer)
    cancelled = htmx_client.post(reverse("judging:run_cancel", args=[study.pk, run.pk]))
    assert cancelled.status_code == 200 and b"Cancelled" in cancelled.content
    assert b"Run it again" in cancelled.content
    again = htmx_client.post(reverse("judging:run_cancel", args=[study.pk, run.pk]))
    assert again.status_code == 409 and b"nothing to cancel" in again.content
    resumed = htmx_client.post(reverse("judging:run_resume", args=[study.pk, run.pk]))
    assert resumed.status_code == 200 and JudgeRun.objects.get().status == "queued"


def test_a_run_of_another_study_is_not_found_under_this_one(study, maintainer):
    run = JudgeRun.objects.create(judge_model="elsewhere/judge", parameters={"study": 0})
    assert maintainer.get(reverse("judging:run", args=[study.pk, run.pk])).status_code == 404


def test_the_prompt_list_shows_every_prompt_in_bounded_queries(
    maintainer, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        page = maintainer.get(reverse("judging:prompts"))
    assert b"reference-guided" in page.content and b"critique-then-verdict" in page.content


def test_a_new_prompt_is_created_with_its_first_version(maintainer):
    answer = maintainer.post(
        reverse("judging:prompts"),
        {"name": "short", "description": "", "style": "binary", "text": TEXT},
    )
    template = PromptTemplate.objects.get(name="short")
    assert answer.status_code == 302 and template.versions.get().number == 1


def test_saving_the_editor_makes_a_new_version(maintainer):
    template = PromptTemplate.objects.get(name="reference-guided")
    url = reverse("judging:prompt", args=[template.pk])
    answer = maintainer.post(url, {"text": TEXT, "style": "binary", "note": "Shorter."})
    assert answer.status_code == 302
    assert list(template.versions.values_list("number", "note")) == [
        (1, "Shipped with L2 Annot."),
        (2, "Shorter."),
    ]
    refused = maintainer.post(url, {"text": "{{task}} {{oops}}", "style": "binary"})
    assert refused.status_code == 422 and b"unknown slot {{oops}}" in refused.content


def test_a_prompt_versions_answer_style_is_read_in_the_readers_language(maintainer):
    template = PromptTemplate.objects.get(name="reference-guided")
    url = reverse("judging:prompt", args=[template.pk])
    page = maintainer.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Binario: verdadero o falso" in page and "Binary: true or false" not in page


def test_the_preview_fills_the_text_being_written_with_a_real_unit(study, maintainer):
    answer = htmx(maintainer).post(
        reverse("judging:prompt_preview"), {"text": TEXT, "study": study.pk}
    )
    body = answer.content.decode()
    assert answer.status_code == 200 and "{{" not in body
    item = study.items.select_related("response__task").order_by("pk").first()
    assert item.response.task.instruction[:40] in body
    bad = htmx(maintainer).post(reverse("judging:prompt_preview"), {"text": "{{task}}"})
    assert b"never shows the judge the {{response}}" in bad.content


def test_a_run_whose_worker_died_says_so_and_can_be_run_again(study, maintainer):
    run = start_run(study, model=model_name(), limit=1, by=None, enqueue=False)
    long_ago = timezone.now() - timedelta(minutes=5)
    JudgeRun.objects.filter(pk=run.pk).update(status="running", started=long_ago)
    worker_last_seen(run, long_ago)
    page = maintainer.get(reverse("judging:run", args=[study.pk, run.pk]))
    assert b"no sign of life" in page.content and b"Run it again" in page.content
    resumed = maintainer.post(reverse("judging:run_resume", args=[study.pk, run.pk]))
    assert resumed.status_code == 302 and JudgeRun.objects.get().status == "queued"


def test_a_running_run_with_a_live_worker_cannot_be_started_twice(study, maintainer):
    run = start_run(study, model=model_name(), limit=1, by=None, enqueue=False)
    JudgeRun.objects.filter(pk=run.pk).update(status="running", started=timezone.now())
    worker_last_seen(run, timezone.now())
    refused = maintainer.post(reverse("judging:run_resume", args=[study.pk, run.pk]))
    assert refused.status_code == 409


def _run_with_stated_probabilities(study) -> JudgeRun:
    """An ended run of three verdicts, two with the probability of a pass the judge stated."""
    run = start_run(study, model=model_name(), limit=3, by=None, enqueue=False)
    JudgeRun.objects.filter(pk=run.pk).update(status="succeeded")
    item = study.items.select_related("response", "rubric_version").order_by("pk").first()
    first, second, third = [
        line.version for line in item.rubric_version.effective_rubric() if line.applicable
    ][:3]
    JudgeVerdict.objects.bulk_create(
        JudgeVerdict(run=run, response=item.response, criterion_version=version, verdict=verdict,
                     pass_probability=probability)
        for version, verdict, probability in ((first, True, 0.9), (second, False, 0.2),
                                              (third, False, None))
    )  # fmt: skip
    return JudgeRun.objects.get(pk=run.pk)


def test_a_run_counts_the_probabilities_of_a_pass_its_judge_stated(study):
    run = _run_with_stated_probabilities(study)
    found = run.stated_probabilities()
    assert (found.verdicts, found.stated) == (3, 2) and found.mean == pytest.approx(0.55)
    JudgeVerdict.objects.filter(run=run).update(pass_probability=None)
    assert run.stated_probabilities() == StatedProbabilities(3, 0, None)


def test_an_ended_runs_page_shows_the_probabilities_of_a_pass_its_judge_stated(study, maintainer):
    run = _run_with_stated_probabilities(study)
    url = reverse("judging:run", args=[study.pk, run.pk])
    page = maintainer.get(url).content.decode()
    assert "Stated probability of a pass" in page and "on 2 of 3 verdicts, 0.55 on average" in page
    spanish = maintainer.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "0,55" in spanish and "Stated probability" not in spanish
    JudgeRun.objects.filter(pk=run.pk).update(status="running")  # refreshed every second
    assert "Stated probability of a pass" not in maintainer.get(url).content.decode()
