"""What a maintainer does in the browser: compare two judge runs, then resolve one of a run's
disagreements with the experts into the draft of the criterion's next version."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from judging.models import JudgeRun, JudgeVerdict, TriageResolution
from rubrics.models import CriterionVersion
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def _run(study, prompt: str, verdict: bool) -> JudgeRun:
    run = JudgeRun.objects.create(judge_model="judge-m", prompt_version=prompt)
    for item in study.items.all():
        for version in factories.rubric_of(item.assignments.first()):
            JudgeVerdict.objects.create(
                run=run,
                response=item.response,
                criterion_version=version,
                verdict=verdict,
                rationale=f"{prompt} thinks it {'passes' if verdict else 'fails'}",
            )
    return run


def test_maintainer_compares_two_runs_and_resolves_a_disagreement_into_a_draft(
    new_page, log_in, make_user
):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.graded_study(graders, ["pass", "pass", "pass"], responses=1)
    v1, v2 = _run(study, "v1", verdict=False), _run(study, "v2", verdict=True)
    page = new_page(width=1280)
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("judging:calibration", args=[study.pk, v2.pk]))
    page.get_by_role("link", name="Compare this run with others").click()
    page.get_by_label("judge-m · v1").check()
    assert page.get_by_label("judge-m · v2").is_checked()
    page.get_by_role("button", name="Compare").click()
    sentence = page.get_by_text("judge-m · v2 agrees with the experts more than judge-m · v1")
    sentence.wait_for()
    assert "no detectable difference on 3" in sentence.inner_text()  # one unit per criterion

    page.get_by_role("link", name="judge-m · v1").click()
    page.get_by_role("heading", name="Where judge-m · v1 disagrees").wait_for()
    card = page.locator("article.card").first
    assert card.get_by_text("v1 thinks it fails").is_visible()
    assert card.get_by_text("Expert A").is_visible()
    card.get_by_label("The criterion is ambiguous").check()
    card.get_by_label("Note").fill("'Meets expectation' says nothing about what to look for.")
    page.evaluate("window.stillThisPage = true")  # survives an htmx swap, not a page load
    card.get_by_role("button", name="Resolve").click()

    draft_link = page.get_by_role("link", name="Edit the draft of version 2")
    draft_link.wait_for()
    assert page.evaluate("window.stillThisPage") is True
    resolution = TriageResolution.objects.get()
    assert resolution.run == v1 and resolution.kind == "ambiguous"
    draft = CriterionVersion.objects.get(pk=resolution.draft_id)
    assert (draft.number, draft.frozen) == (2, False)
    draft_link.click()
    page.wait_for_url(f"**{reverse('rubrics:criterion_edit', args=[draft.criterion_id])}")
    assert page.csp_errors == []
