"""What a judge run costs: the run form's estimate (counted from the prompts' lengths, never
filled for it, and kept while its inputs stay the same) and its budget, the tokens and cost
shown as the run goes (against the loopback OpenAI server), and a price kept on the run."""

import sys
from decimal import Decimal
from itertools import product

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

import judging.costs
from accounts.roles import Role
from audit import editing
from core.costs import estimate
from core.prompting import asking_probability, render
from grading import services as grading_services
from judging.costs import costing
from judging.models import JudgeRun, ModelPrice, PromptVersion
from judging.running import execute_run
from judging.runs import start_run
from judging.units import study_units
from rubrics import services as rubric_services
from rubrics.models import Response, Task, TaskContextValue
from taxonomy.models import ContextVariable
from tests.conftest import htmx
from tests.llm_server import Reply, model_name, tokens

JUDGE = model_name("judge-cost")


@pytest.fixture(autouse=True)
def budget(judge_files, settings) -> None:
    settings.JUDGE_RUN_BUDGET = Decimal("1.00")


@pytest.fixture
def price(db) -> ModelPrice:
    # A price far above any provider's, so the loopback server's few tokens cost cents.
    return ModelPrice.objects.create(
        model=model_name(""), input_per_million=Decimal(1000), output_per_million=Decimal(2000)
    )


def _prompt() -> PromptVersion:
    return PromptVersion.objects.get(template__name="reference-guided")


def form(**values):
    return {"model": JUDGE, "prompt": _prompt().pk, "epochs": 1, "max_connections": 2} | values


def test_a_run_estimated_above_the_budget_is_refused_saying_the_estimate_and_the_budget(
    study, price, maintainer
):
    answer = maintainer.post(reverse("judging:judge", args=[study.pk]), form())
    body = answer.content.decode()
    assert answer.status_code == 422 and not JudgeRun.objects.exists()
    assert "above the budget of a run (1.00 USD)" in body
    assert 'name="confirm_cost"' in body  # the confirmation is offered
    estimated = start_run(study, model=JUDGE, confirm_cost=True, by=None, enqueue=False)
    assert f"estimated at {estimated.estimated_cost} USD" in body


@pytest.fixture
def fills(monkeypatch) -> list[str]:
    """Every prompt filled from here on, by whichever module of the judge app fills it."""
    filled: list[str] = []

    def counted(text, unit):
        filled.append(render(text, unit))
        return filled[-1]

    for name, module in list(sys.modules.items()):
        if name.startswith("judging.") and getattr(module, "render", None) is render:
            monkeypatch.setattr(module, "render", counted)
    return filled


def test_the_estimate_fills_no_prompt_and_the_job_fills_each_prompt_once(
    study, price, maintainer, llm_server, fills
):
    llm_server.default = lambda request: Reply(text="true")
    url = reverse("judging:run_estimate", args=[study.pk])
    for epochs in (1, 2, 1):
        assert htmx(maintainer).get(url, form(epochs=epochs)).status_code == 200
    refused = maintainer.post(reverse("judging:judge", args=[study.pk]), form())
    assert refused.status_code == 422 and "above the budget of a run" in refused.content.decode()
    maintainer.post(reverse("judging:judge", args=[study.pk]), form(confirm_cost="on"))
    assert JudgeRun.objects.count() == 1 and fills == []
    run = execute_run(JudgeRun.objects.get().pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    planned = study_units(study)
    assert run.calls_total == len(planned) == len(fills)
    assert sorted(fills) == sorted(render(_prompt().text, call.unit) for call in planned)


def test_the_estimate_is_counted_once_while_its_inputs_stay_the_same(
    study, price, maintainer, monkeypatch
):
    counted = []
    count = judging.costs.prompt_lengths
    monkeypatch.setattr(
        judging.costs, "prompt_lengths", lambda *a, **k: counted.append(a) or count(*a, **k)
    )
    url = reverse("judging:run_estimate", args=[study.pk])
    for values in (form(), form(epochs=3), form(limit=2), form(batch="on")):
        assert htmx(maintainer).get(url, values).status_code == 200
    assert len(counted) == 1
    before = costing(study, model=JUDGE, prompt=_prompt(), epochs=1, limit=None).estimate
    assert len(counted) == 1
    task = study.items.order_by("pk").first().response.task
    Task.objects.filter(pk=task.pk).update(instruction=task.instruction + " And be brief.")
    task.refresh_from_db()
    task.save()  # a task edited by hand: saved again, its texts counted again
    edited = costing(study, model=JUDGE, prompt=_prompt(), epochs=1, limit=None).estimate
    assert len(counted) == 2 and edited.input_tokens > before.input_tokens
    TaskContextValue.objects.filter(task=task).first().delete()
    fewer = costing(study, model=JUDGE, prompt=_prompt(), epochs=1, limit=None).estimate
    assert len(counted) == 3 and fewer.input_tokens < edited.input_tokens
    variable = ContextVariable.objects.filter(framework=study.framework, kind="number").first()
    rubric_services.set_context_value(task, variable, 150, None)
    costing(study, model=JUDGE, prompt=_prompt(), epochs=1, limit=None)
    assert len(counted) == 4
    # A listed value renamed in the taxonomy is in every prompt that shows it.
    listed = TaskContextValue.objects.filter(task=task, value__isnull=False).first().value
    editing.update(listed, {"label": listed.label + " (renamed)"}, listed.revision, None)
    renamed = costing(study, model=JUDGE, prompt=_prompt(), epochs=1, limit=None).estimate
    assert len(counted) == 5 and renamed.input_tokens > fewer.input_tokens


EVERY_SLOT = (
    "Task: {{task}}\nReference: {{ reference_answer }}\nAnswer:\n{{response}}\n"
    "Dialogue again:\n{{dialogue}}\nCriterion: {{criterion}} ({{criterion}})\n{{context}}\n"
    "Level: {{context.cefr_level}}; first language: {{context.nowhere}}; {{not_a_slot}} ¿Sí?"
)

BARE = "{{response}}{{criterion}}"


def test_the_estimate_equals_the_filled_prompts_on_every_kind_of_unit(study, price):
    """Dialogues judged per tutor turn, ordinal criteria, context values, texts beyond ASCII,
    a template using every slot (some twice): the estimate from lengths is the full one."""
    every = grading_services.create_study(
        name="Every response",
        framework=study.framework,
        responses=list(Response.objects.filter(superseded_at__isnull=True).order_by("pk")),
        annotators=[],
        overlap=1,
        seed=1,
    )
    answer = every.items.order_by("pk").first().response
    Response.objects.filter(pk=answer.pk).update(text="Très bien 👍 — 中文\r\nfin")
    template = _prompt().template
    prompts = [
        _prompt(),
        PromptVersion.objects.create(template=template, number=90, text=EVERY_SLOT),
        PromptVersion.objects.create(
            template=template, number=91, text="{{response}}{{criterion}}"
        ),
    ]
    planned = study_units(every)
    assert any(call.turn is not None for call in planned)
    assert any(call.scale is not None for call in planned)
    assert any(call.unit.context for call in planned) and any(call.unit.turns for call in planned)
    for prompt, ask in product(prompts, (False, True)):
        for limit in (None, 1, 5, len(planned) - 1):
            filled = (
                asking_probability(text) if ask and call.scale is None else text
                for call in planned[:limit]
                for text in [render(prompt.text, call.unit)]
            )
            full = estimate(filled, epochs=2, style=prompt.style, price=price.price)
            found = costing(
                every, model=JUDGE, prompt=prompt, epochs=2, limit=limit, ask_probability=ask
            ).estimate
            assert found == full, (prompt.number, ask, limit)


def test_a_run_above_the_budget_starts_once_confirmed_keeping_its_price_and_estimate(
    study, price, maintainer
):
    answer = maintainer.post(reverse("judging:judge", args=[study.pk]), form(confirm_cost="on"))
    assert answer.status_code == 302
    run = JudgeRun.objects.get()
    assert run.estimated_cost > Decimal("1.00") and run.estimated_input_tokens > 0
    assert (run.price_input_per_million, run.price_output_per_million, run.currency) == (
        Decimal(1000),
        Decimal(2000),
        "USD",
    )
    assert run.estimated_output_tokens == run.calls_total * 5  # a binary answer: 5 assumed


def test_a_run_within_the_budget_or_without_a_price_needs_no_confirmation(study, maintainer):
    answer = maintainer.post(reverse("judging:judge", args=[study.pk]), form(limit=2))
    assert answer.status_code == 302
    run = JudgeRun.objects.get()
    assert run.estimated_cost is None and run.cost is None and run.calls_total == 2


def test_the_form_estimates_calls_tokens_and_cost_as_it_changes(
    study, price, maintainer, django_assert_max_num_queries
):
    url = reverse("judging:run_estimate", args=[study.pk])
    with django_assert_max_num_queries(22):  # the prompts' lengths counted, and cached
        htmx(maintainer).get(url, form(limit=3))
    with django_assert_max_num_queries(12):  # the lengths from the cache
        answer = htmx(maintainer).get(url, form(limit=3, epochs=2))
    body = answer.content.decode()
    assert answer.status_code == 200 and body.strip().startswith('<div id="run-estimate"')
    assert '<dd class="estimate-calls">6</dd>' in body and "USD" in body
    assert "characters divided by 4" in body
    assert 'name="confirm_cost"' in body  # above the budget: the confirmation is offered
    ModelPrice.objects.all().delete()
    unpriced = htmx(maintainer).get(url, form(limit=3)).content.decode()
    assert f"no price known for {JUDGE}" in unpriced and 'name="confirm_cost"' not in unpriced


def test_the_judge_page_lists_each_runs_cost_in_bounded_queries(
    study, price, maintainer, django_assert_max_num_queries
):
    for n in range(3):
        run = start_run(study, model=JUDGE, limit=1, confirm_cost=True, by=None, enqueue=False)
        JudgeRun.objects.filter(pk=run.pk).update(input_tokens=1000 * (n + 1))
    with django_assert_max_num_queries(12):
        page = maintainer.get(reverse("judging:judge", args=[study.pk])).content.decode()
    assert "1.00 USD" in page and "2.00 USD" in page and "3.00 USD" in page


def test_the_run_page_shows_tokens_cost_and_unparseable_answers_as_the_run_goes(
    study, price, maintainer, llm_server
):
    # Calls one at a time, 0.3 s each: the job's thread (every 0.5 s) sees the run half done.
    llm_server.default = lambda request: Reply(text="true", delay=0.3)
    llm_server.queue("Perhaps.", "Perhaps.", "Perhaps.", "Perhaps.")  # the first call: no verdict
    run = start_run(
        study, model=JUDGE, limit=6, max_connections=1, confirm_cost=True, by=None, enqueue=False
    )
    url = reverse("judging:run", args=[study.pk, run.pk])
    seen = []

    def look(done, total):
        shown = JudgeRun.objects.get(pk=run.pk)
        if shown.status == JudgeRun.Status.RUNNING and 2 <= done < total and not seen:
            page = htmx(maintainer).get(url).content.decode()
            seen.append((shown.input_tokens, shown.unparseable, shown.cost, page))

    run = execute_run(run.pk, on_progress=look)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    ((input_tokens, unparseable, cost, page),) = seen
    assert 0 < input_tokens < run.input_tokens and unparseable == 1
    assert cost > 0 and "Cost so far" in page and f"{cost} USD" in page
    assert '<dd class="run-unparseable">1</dd>' in page
    # What the page counted is what the provider reported, call by call.
    assert run.input_tokens == sum(tokens(r.prompt) for r in llm_server.completions)
    paid = (Decimal(run.input_tokens) + 2 * Decimal(run.output_tokens)) / 1000
    assert run.cost == paid.quantize(Decimal("0.01"))
    assert run.unparseable == 1


def test_a_price_edited_after_a_run_leaves_its_cost_alone(study, price):
    run = start_run(study, model=JUDGE, limit=1, confirm_cost=True, by=None, enqueue=False)
    JudgeRun.objects.filter(pk=run.pk).update(
        status=JudgeRun.Status.SUCCEEDED, calls_done=1, input_tokens=2000, output_tokens=500
    )
    price.input_per_million, price.output_per_million = Decimal(1), Decimal(1)
    price.save()
    run = JudgeRun.objects.get(pk=run.pk)
    assert run.cost == Decimal("3.00") and run.cost_per_unit == Decimal("3.0000")


def test_the_longest_price_that_starts_the_model_prices_it(db):
    ModelPrice.objects.create(model="openai/gpt-4.1", input_per_million=2, output_per_million=8)
    mini = ModelPrice.objects.create(
        model="openai/gpt-4.1-mini", input_per_million=1, output_per_million=1
    )
    assert ModelPrice.objects.for_model("openai/gpt-4.1-mini-2025-04-14") == mini
    assert ModelPrice.objects.for_model("openai/gpt-4.1").model == "openai/gpt-4.1"
    assert ModelPrice.objects.for_model("anthropic/claude-sonnet-4-6") is None


def test_the_command_refuses_a_run_above_the_budget_unless_told_to_confirm(study, price):
    with pytest.raises(CommandError, match=r"above the budget of a run \(1.00 USD\)"):
        call_command("run_judge", str(study.pk), "--model", JUDGE, "--queue")
    assert not JudgeRun.objects.exists()
    call_command("run_judge", str(study.pk), "--model", JUDGE, "--queue", "--confirm-cost")
    assert JudgeRun.objects.get().estimated_cost > Decimal("1.00")


def test_an_administrator_is_offered_to_add_a_missing_price(study, client_as, maintainer):
    url = reverse("judging:run_estimate", args=[study.pk])
    admin = htmx(client_as(Role.ADMIN)).get(url, form(limit=1)).content.decode()
    add = reverse("admin:judging_modelprice_add")
    assert f'href="{add}?model=openai-api/loopback/judge-cost"' in admin
    assert add not in htmx(maintainer).get(url, form(limit=1)).content.decode()


def test_a_batch_run_is_estimated_at_the_batch_price(study):
    ModelPrice.objects.create(
        model="openai/gpt-4.1",
        input_per_million=Decimal(2),
        output_per_million=Decimal(8),
        batch_discount=Decimal("0.5"),
    )
    prompt = PromptVersion.objects.get(template__name="reference-guided")
    values = {"model": "openai/gpt-4.1", "prompt": prompt, "epochs": 1, "limit": None}

    plain, batch = costing(study, **values), costing(study, **values, batch=True)

    assert batch.price is not None and batch.price.input_per_million == Decimal(1)
    assert batch.price.output_per_million == Decimal(4)
    assert plain.estimate.cost is not None and batch.estimate.cost is not None
    assert batch.estimate.cost == pytest.approx(plain.estimate.cost / 2, abs=Decimal("0.01"))
