"""What a maintainer does on the proficiency scales page: add a level to a scale, mapped to a
level of another scale, without leaving the page."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from taxonomy.models import ContextVariable, ProficiencyLevel, ProficiencyScale
from taxonomy.scales import sync_scale_values
from tests.factories import make_framework

pytestmark = pytest.mark.django_db(transaction=True)


def test_maintainer_adds_a_level_mapped_to_another_scales_level_and_sees_it_listed(
    new_page, log_in
):
    framework = make_framework()
    cefr = ProficiencyScale.objects.create(framework=framework, code="cefr", name="CEFR", order=1)
    for order, label in enumerate(["A1", "A2", "B1"], start=1):
        ProficiencyLevel.objects.create(scale=cefr, code=label.lower(), label=label, order=order)
    actfl = ProficiencyScale.objects.create(
        framework=framework, code="actfl", name="ACTFL", order=2
    )
    ProficiencyLevel.objects.create(
        scale=actfl,
        code="novice-high",
        label="Novice High",
        order=1,
        corresponds_to=cefr.levels.get(code="a1"),
    )
    variable = ContextVariable.objects.create(
        framework=framework, key="actfl_level", label="ACTFL level", kind="ordinal", scale=actfl
    )
    sync_scale_values(variables=[variable])

    page = new_page()
    log_in(page, Role.MAINTAINER)
    page.goto(reverse("taxonomy:competencies", args=["test-fw"]))
    page.get_by_role("link", name="Proficiency scales").click()
    page.wait_for_url(f"**{reverse('taxonomy:scales', args=['test-fw'])}")
    page.evaluate("window.__sameDocument = true")

    card = page.locator(f"#item-{actfl.pk}")
    card.get_by_text("Add a level to ACTFL").click()
    card.get_by_label("Code").fill("intermediate-low")
    card.get_by_label("Label").fill("Intermediate Low")
    card.get_by_label("Corresponds to").select_option(label="CEFR A2")
    card.get_by_role("button", name="Add level").click()

    card.get_by_role("status").wait_for()
    assert "Added" in card.get_by_role("status").inner_text()
    listed = card.locator("li.child", has_text="Intermediate Low")
    assert listed.is_visible() and "≈ CEFR A2" in listed.inner_text()
    assert page.evaluate("window.__sameDocument") is True  # the card was swapped in place
    level = ProficiencyLevel.objects.get(scale=actfl, code="intermediate-low")
    assert level.corresponds_to == cefr.levels.get(code="a2")
    assert variable.values.filter(level=level, label="Intermediate Low").exists()

    page.reload()
    assert page.locator(f"#item-{actfl.pk} li.child", has_text="Intermediate Low").is_visible()
    assert page.csp_errors == []
