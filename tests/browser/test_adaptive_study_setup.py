"""A maintainer sets up a study with adaptive overlap and gold checks from the pages alone: the
overlap share and escalation on the new study form, the preview of k graders on a share and one
on the rest, then gold checks added on the pool and settings page."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication
from grading.models import Assignment, Study
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_study_with_adaptive_overlap_and_gold_checks_is_set_up_from_the_pages(
    new_page, log_in, make_user
):
    fw = factories.framework()
    earlier = factories.study([], responses=1, overlap=1)
    source = earlier.items.get()
    adjudicator = make_user(Role.MAINTAINER, "adjudicator")
    for line in source.rubric_version.effective_rubric():
        adjudication.record_gold_verdict(
            source, line.version.pk, verdict="pass", note="", by=adjudicator, base_revision=0
        )
    for _ in range(4):
        factories.response(factories.published_task(fw, criteria=1, language="Basque"))
    graders = [make_user(Role.ANNOTATOR, f"grader{n}") for n in range(2)]
    page = new_page()
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("grading:study_create"))
    page.get_by_label("Name:", exact=True).fill("Adaptive pilot")
    page.get_by_label("Graders per response (k)").fill("2")
    page.get_by_label("Overlap share (%)").fill("50")
    page.get_by_label("Escalation:", exact=True).select_option("any")
    page.get_by_label("Escalation cap").fill("3")
    page.get_by_label("Gold rate").fill("20")
    page.get_by_label("Language").select_option("Basque")
    page.get_by_text("4 tasks match, with 4 responses.").wait_for()
    page.get_by_label("Select all 4 tasks that match").check()
    preview = page.locator("#preview")
    for n, grader in enumerate(graders, start=1):
        page.get_by_label(grader.username, exact=True).check()
        preview.get_by_text(f"for {n} annotator").wait_for()
    assert preview.locator("#preview-units").inner_text() == (
        "4 responses to grade, 2 graders on 2 (50%) and one on 2: 6 assignments for 2 annotators."
    )
    page.get_by_role("button", name="Create study").click()
    page.get_by_role("heading", name="Adaptive pilot").wait_for()
    study = Study.objects.get(name="Adaptive pilot")
    assert (study.overlap_percent, study.escalation, study.escalation_cap) == (50, "any", 3)

    page.get_by_role("link", name="Pool and settings").click()
    page.get_by_text("on 50% of the responses, one on the rest").wait_for()
    page.locator("#gold-form").get_by_role("checkbox").check()
    page.get_by_role("button", name="Add as gold checks").click()
    page.locator(".message.success").get_by_text("1 gold check added").wait_for()
    gold = page.locator("#gold-checks")
    assert gold.get_by_role("cell", name=earlier.name).count() == 1
    assert page.locator("#gold-accuracy").get_by_text("none graded yet").count() == 2
    check = study.items.gold_checks().get()
    assert Assignment.objects.filter(study_item=check).count() == 2
    assert page.csp_errors == []
