"""The triage queue: a run's disagreements with the experts, read and resolved by a maintainer."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from grading import adjudication
from grading.models import AdjudicationRequest, Study
from judging.calibration import triage
from judging.models import JudgeRun, JudgeVerdict, TriageResolution
from judging.services import create_template
from rubrics.models import CriterionVersion
from tests.factories import graded_demo_study, judge_run

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int | str]:
    study = graded_demo_study()
    item = study.items.order_by("pk").first()
    code = next(
        line.version.criterion.code
        for line in item.rubric_version.effective_rubric()
        if line.layer == "task" and line.applicable
    )
    v1 = judge_run(study, "v1", fails_universal=True)
    v3 = judge_run(study, "v3", fails_universal=False, fails_code=code)
    v3.prompt = create_template(
        "strict", "Judge {{response}} on {{criterion}}. Answer true or false.", by=None
    )
    v3.save()
    return {"study": study.pk, "v1": v1.pk, "v3": v3.pk, "code": code}


@pytest.fixture
def study(world) -> Study:
    return Study.objects.get(pk=world["study"])


@pytest.fixture
def v1(world) -> JudgeRun:
    return JudgeRun.objects.get(pk=world["v1"])


@pytest.fixture
def v3(world) -> JudgeRun:
    return JudgeRun.objects.get(pk=world["v3"])


def _resolve_url(study, run, unit_pair):
    item, version = unit_pair
    return reverse("judging:triage_resolve", args=[study.pk, run.pk, item, version])


def test_the_queue_holds_the_disagreements_heaviest_criteria_first(study, v1):
    found = triage(study, v1)
    assert found.units
    assert {found.criteria[u.criterion].layer for u in found.units} == {"universal"}
    weights = [abs(u.weight) for u in found.units]
    assert weights == sorted(weights, reverse=True)
    assert all(u.verdict == 0 and u.majority == 1 for u in found.units)


def test_the_page_shows_each_unit_with_anonymous_experts_and_the_judge_output(
    study, v1, maintainer, django_assert_max_num_queries
):
    url = reverse("judging:triage", args=[study.pk, v1.pk])
    triage(study, v1)  # computed once; the page reads the cache
    # 21: the report cache key also reads the state of the proficiency levels
    with django_assert_max_num_queries(21):
        response = maintainer.get(url)
    body = response.content.decode()
    assert response.status_code == 200
    assert "Expert A" in body and "Expert C" in body
    assert "grader0" not in body and "grader2" not in body  # names stay hidden
    assert "reason number 2" in body  # the dissenter's rationale
    assert "judge v1 reasons about" in body
    assert body.count('<article class="card"') == 20  # one page
    spanish = maintainer.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    labels = ("Cumple", "Incumple", "Presente", "Ausente")
    assert any(f"</strong>: {label}" in spanish for label in labels)
    assert "</strong>: pass" not in spanish and "</strong>: fail" not in spanish
    assert "<strong>Experto/a A</strong>" in spanish and "Expert A" not in spanish


def test_a_stated_probability_of_a_pass_is_shown_beside_the_judges_verdict(study, v1, maintainer):
    url = reverse("judging:triage", args=[study.pk, v1.pk])
    assert "probability of a pass it stated" not in maintainer.get(url).content.decode()
    JudgeVerdict.objects.filter(run=v1).update(pass_probability=0.27)
    body = maintainer.get(url).content.decode()
    assert body.count("</strong> (the probability of a pass it stated: 0.27)") == 20
    spanish = maintainer.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "0,27" in spanish and "probability of a pass" not in spanish


def test_a_run_that_judged_nothing_of_the_study_is_not_found(study, maintainer):
    other = JudgeRun.objects.create(judge_model="elsewhere")
    url = reverse("judging:triage", args=[study.pk, other.pk])
    assert maintainer.get(url).status_code == 404


def test_an_ambiguous_criterion_opens_a_prefilled_draft_of_its_next_version(study, v1, maintainer):
    found = triage(study, v1)
    pair = found.pair(found.units[0])
    graded = CriterionVersion.objects.get(pk=pair[1])
    response = maintainer.post(
        _resolve_url(study, v1, pair),
        {"kind": "ambiguous", "note": "pass for what?"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    resolution = TriageResolution.objects.get(run=v1)
    draft = resolution.draft
    assert (draft.criterion_id, draft.number, draft.frozen) == (
        graded.criterion_id,
        graded.number + 1,
        False,
    )
    assert (draft.wording, draft.weight) == (graded.wording, graded.weight)
    body = response.content.decode()
    assert reverse("rubrics:criterion_edit", args=[graded.criterion_id]) in body
    assert "<html" not in body  # the card alone
    again = maintainer.post(_resolve_url(study, v1, pair), {"kind": "judge_error", "note": "x"})
    assert again.status_code == 409
    assert TriageResolution.objects.filter(run=v1).count() == 1


def test_a_judge_error_needs_a_note_and_is_kept_on_the_prompt_version(study, v3, maintainer):
    found = triage(study, v3)
    pair = found.pair(found.units[0])
    url = _resolve_url(study, v3, pair)
    refused = maintainer.post(url, {"kind": "judge_error", "note": ""})
    assert refused.status_code == 422
    assert not TriageResolution.objects.exists()
    done = maintainer.post(url, {"kind": "judge_error", "note": "ignores the reference"})
    assert done.status_code == 302
    resolution = TriageResolution.objects.get()
    assert resolution.prompt == v3.prompt and resolution.note == "ignores the reference"
    prompt_page = maintainer.get(reverse("judging:prompt", args=[v3.prompt.template_id]))
    assert "Judge errors noted in triage" in prompt_page.content.decode()
    assert "ignores the reference" in prompt_page.content.decode()


def test_experts_were_wrong_sends_an_agreed_unit_to_adjudication(study, v3, maintainer):
    found = triage(study, v3)
    pair = found.pair(found.units[0])
    assert not adjudication.disagreements(study).filter(item=pair[0], version=pair[1]).exists()
    response = maintainer.post(_resolve_url(study, v3, pair), {"kind": "experts_wrong"})
    assert response.status_code == 302
    assert AdjudicationRequest.objects.filter(study_item=pair[0], criterion_version=pair[1])
    row = adjudication.disagreements(study).get(item=pair[0], version=pair[1])
    assert row["requested"] and row["gold"] is None


def test_the_comparison_page_counts_resolutions_per_criterion_and_prompt(
    study, v1, v3, maintainer, world
):
    for run, kind in ((v1, "ambiguous"), (v3, "judge_error")):
        found = triage(study, run)
        maintainer.post(
            _resolve_url(study, run, found.pair(found.units[0])), {"kind": kind, "note": "n"}
        )
    body = maintainer.get(
        reverse("judging:compare", args=[study.pk]), {"run": [v1.pk, v3.pk]}
    ).content.decode()
    assert "Disagreements resolved" in body
    assert '<th scope="row">strict@1</th><td>0</td><td>1</td><td>0</td>' in body
    assert '<th scope="row">v1</th><td>1</td><td>0</td><td>0</td>' in body
    assert f'<th scope="row">{world["code"]}</th>' in body


def test_an_unparseable_answer_is_not_a_disagreement(study, v1):
    found = triage(study, v1)
    item, version = found.pair(found.units[0])
    response = Study.objects.get(pk=study.pk).items.get(pk=item).response_id
    JudgeVerdict.objects.filter(run=v1, response_id=response, criterion_version_id=version).update(
        verdict=None
    )
    again = triage(study, v1)
    assert len(again.units) == len(found.units) - 1
    assert (item, version) not in {again.pair(u) for u in again.units}


def _reopen_url(study, run, unit_pair):
    item, version = unit_pair
    return reverse("judging:triage_reopen", args=[study.pk, run.pk, item, version])


def test_reopening_experts_were_wrong_withdraws_the_waiting_request_with_its_history(
    study, v3, maintainer
):
    found = triage(study, v3)
    pair = found.pair(found.units[0])
    maintainer.post(_resolve_url(study, v3, pair), {"kind": "experts_wrong", "note": "why"})
    resolved = maintainer.get(reverse("judging:triage", args=[study.pk, v3.pk])).content
    assert b"The adjudication request is withdrawn if the unit has not been adjudicated" in resolved
    response = maintainer.post(_reopen_url(study, v3, pair), headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert "The adjudication request is withdrawn." in body
    assert 'name="kind"' in body  # the unit is open again: its form is back
    assert not TriageResolution.objects.exists()
    assert not AdjudicationRequest.objects.filter(study_item=pair[0], criterion_version=pair[1])
    history = AuditEvent.objects.filter(kind="deleted").values_list("comment", "changes")
    assert ("Triage resolution reopened.", {"kind": ["experts_wrong", None], "note": ["why", None],
            "draft": [None, None]}) in list(history)  # fmt: skip
    assert AuditEvent.objects.filter(
        kind="deleted", content_type__model="adjudicationrequest"
    ).exists()
    again = maintainer.post(_reopen_url(study, v3, pair))
    assert again.status_code == 409 and b"reopened meanwhile" in again.content


def test_reopening_one_runs_experts_were_wrong_keeps_the_request_another_run_relies_on(
    world, study, v3, maintainer
):
    twin = judge_run(study, "v4", fails_universal=False, fails_code=world["code"])
    found = triage(study, v3)
    pair = found.pair(found.units[0])
    for run in (v3, twin):
        maintainer.post(_resolve_url(study, run, pair), {"kind": "experts_wrong"})
    requested = AdjudicationRequest.objects.filter(study_item=pair[0], criterion_version=pair[1])
    assert requested.count() == 1

    hx = {"HX-Request": "true"}
    body = maintainer.post(_reopen_url(study, v3, pair), headers=hx).content.decode()
    assert "Another judge run&#x27;s resolution still sends the unit to adjudication" in body
    assert requested.count() == 1  # the twin run's resolution still relies on it
    body = maintainer.post(_reopen_url(study, twin, pair), headers=hx).content.decode()
    assert "The adjudication request is withdrawn." in body
    assert requested.count() == 0


def test_reopening_after_adjudication_keeps_the_gold_verdict_and_ambiguous_keeps_its_draft(
    study, v1, v3, maintainer, make_user
):
    found = triage(study, v3)
    pair = found.pair(found.units[0])
    maintainer.post(_resolve_url(study, v3, pair), {"kind": "experts_wrong"})
    item = study.items.get(pk=pair[0])
    adjudication.record_gold_verdict(
        item, pair[1], verdict="fail", note="", by=make_user(Role.MAINTAINER), base_revision=0
    )
    hx = {"HX-Request": "true"}
    body = maintainer.post(_reopen_url(study, v3, pair), headers=hx).content.decode()
    assert "already adjudicated: its gold verdict stands" in body
    assert AdjudicationRequest.objects.filter(study_item=pair[0], criterion_version=pair[1])

    found = triage(study, v1)
    pair = found.pair(found.units[0])
    maintainer.post(_resolve_url(study, v1, pair), {"kind": "ambiguous", "note": "vague"})
    draft = TriageResolution.objects.get(run=v1).draft
    body = maintainer.post(_reopen_url(study, v1, pair), headers=hx).content.decode()
    assert "stays a draft" in body
    draft.refresh_from_db()
    assert draft.frozen is False and not TriageResolution.objects.filter(run=v1).exists()
    resolved_again = maintainer.post(
        _resolve_url(study, v1, pair), {"kind": "judge_error", "note": "n"}
    )
    assert resolved_again.status_code == 302  # the unit is open to resolve again
