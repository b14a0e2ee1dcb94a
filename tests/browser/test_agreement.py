"""A researcher opens the agreement page of the demo study and sees the plots."""

import pytest

from accounts.models import User
from accounts.roles import Role
from demo.accounts import create_demo_accounts
from demo.benchmark import seed_demo_benchmark
from demo.study import seed_demo_study

pytestmark = pytest.mark.django_db(transaction=True)


def test_viewer_opens_the_demo_study_agreement_and_sees_the_plots(
    starter_framework, new_page, log_in
):
    create_demo_accounts()
    users = {u.username: u for u in User.objects.all()}
    seed_demo_benchmark(starter_framework, users["author"], users["maintainer"])
    study = seed_demo_study()
    page = new_page()
    log_in(page, Role.VIEWER)
    page.get_by_role("link", name="Agreement", exact=True).click()
    page.get_by_role("link", name=study.name).click()
    page.get_by_role("heading", name=f"Agreement: {study.name}").wait_for()
    for name in [
        "Krippendorff's alpha per criterion with 95% interval",
        "Krippendorff's alpha per layer with 95% interval",
        "Pairwise percent agreement of annotators",
    ]:
        chart = page.get_by_role("img", name=name)
        assert chart.is_visible()
        assert chart.bounding_box()["width"] > 200
    assert page.locator("svg.chart circle").count() > 0

    # The leaderboard's competency groups are named, not only numbered ("02").
    page.get_by_role("link", name="Model leaderboard of this study").click()
    by_competency = page.locator("section", has=page.get_by_role("heading", name="By competency"))
    headings = by_competency.get_by_role("heading", level=3).all_inner_texts()
    names = dict(starter_framework.competencies.values_list("code", "name"))
    assert headings and all(h.split(" ", 1) in ([c, names[c]] for c in names) for h in headings)
    assert page.csp_errors == []
