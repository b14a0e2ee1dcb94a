"""The criteria editor: add, edit (with a new draft over a frozen version), reorder, remove,
the conflict view, the live preview, and the consensus and universal pages."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from rubrics import services
from rubrics.models import Criterion, CriterionVersion
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


def criterion_data(prefix: str, **values):
    data = {"wording": "Says what the learners will do.", "weight": 2, "scoring_type": "binary"}
    return {f"{prefix}-{k}": v for k, v in (data | values).items()}


def edit(client, criterion, **values):
    version = services.latest_version(criterion)
    data = {
        "wording": version.wording,
        "weight": version.weight,
        "scoring_type": version.scoring_type,
        "revision": criterion.revision,
    }
    data = {f"c{criterion.pk}-{k}": v for k, v in (data | values).items()}
    return client.post(reverse("rubrics:criterion_edit", args=[criterion.pk]), data)


def test_adding_a_task_criterion_refreshes_the_list_and_the_preview(client_as, task):
    client = htmx(client_as(Role.AUTHOR))
    url = reverse("rubrics:criterion_create", args=[task.pk])
    response = client.post(url, criterion_data("new", wording="Names a penalty.", weight=-4))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="criteria"' in page and "<html" not in page
    assert "t101-03" in page and "penalty -4" in page
    # The preview comes along as an out-of-band swap, with the new line and the same total.
    preview = page[page.index('id="preview"') :]
    assert 'hx-swap-oob="true"' in page[page.index("<aside") :][:200]
    assert "t101-03" in preview and ">13<" in preview  # 4 + 5 + 3 + 1: penalties do not count
    assert task.criteria.get(code="t101-03").versions.get().weight == -4


def test_an_ordinal_criterion_keeps_its_scale_and_labels(client_as, task):
    url = reverse("rubrics:criterion_create", args=[task.pk])
    data = criterion_data(
        "new", scoring_type="ordinal", scale_min=0, scale_max=2, scale_labels="0: none\n2: all"
    )
    assert htmx(client_as(Role.AUTHOR)).post(url, data).status_code == 200
    version = CriterionVersion.objects.get(criterion__code="t101-03")
    assert (version.scale_min, version.scale_max) == (0, 2)
    assert {p.value: p.label for p in version.scale_points.all()} == {0: "none", 2: "all"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"weight": 0}, "A weight of 0 would make the criterion count for nothing."),
        ({"scoring_type": "ordinal", "scale_min": 3, "scale_max": 1}, "minimum below its maximum"),
        ({"wording": ""}, "This field is required."),
        ({"wording": "Uses A | B notation."}, "cannot contain &#x27;|&#x27;"),
    ],
)
def test_invalid_criteria_are_refused_with_a_message(client_as, task, values, message):
    url = reverse("rubrics:criterion_create", args=[task.pk])
    response = htmx(client_as(Role.AUTHOR)).post(url, criterion_data("new", **values))
    assert response.status_code == 422
    assert message in response.content.decode()
    assert task.criteria.count() == 2


def test_an_edit_putting_a_bar_in_the_wording_is_refused_and_changes_nothing(client_as, task):
    criterion = task.criteria.get(code="t101-01")
    before = services.latest_version(criterion).wording
    response = edit(htmx(client_as(Role.AUTHOR)), criterion, wording="Either A|B.")
    assert response.status_code == 422
    assert "the L2-Bench pipeline reads it as the end of the criterion" in response.content.decode()
    assert services.latest_version(criterion).wording == before


def test_editing_a_draft_criterion_changes_it_in_place(client_as, task):
    criterion = task.criteria.get(code="t101-01")
    response = edit(htmx(client_as(Role.AUTHOR)), criterion, wording="Asks about goals first.")
    assert response.status_code == 200
    assert list(criterion.versions.values_list("number", "wording")) == [
        (1, "Asks about goals first.")
    ]


def test_editing_a_published_criterion_warns_and_makes_a_new_draft(client_as, published):
    criterion = published.task.criteria.get(code="t101-01")
    client = htmx(client_as(Role.AUTHOR))
    form = client.get(reverse("rubrics:criterion_edit", args=[criterion.pk])).content.decode()
    assert "Version 1 is published and frozen. Saving creates version 2 as a new draft" in form
    assert edit(client, criterion, wording="Asks about goals and time.").status_code == 200
    versions = list(criterion.versions.values_list("number", "wording", "frozen"))
    assert versions == [
        (1, "Asks about the learner's goals.", True),
        (2, "Asks about goals and time.", False),
    ]
    lines = {line.code: line.version.wording for line in published.effective_rubric()}
    assert lines["t101-01"] == "Asks about the learner's goals."


def test_second_save_of_a_stale_criterion_is_a_conflict_and_changes_nothing(client_as, task):
    criterion = task.criteria.get(code="t101-01")
    first, second = client_as(Role.AUTHOR), client_as(Role.AUTHOR)
    loaded = criterion.revision
    assert edit(first, criterion, wording="Theirs.", revision=loaded).status_code == 302
    response = edit(second, criterion, wording="Mine.", revision=loaded)
    assert response.status_code == 409
    page = response.content.decode()
    assert "Someone else saved this" in page and "Theirs." in page and "Mine." in page
    assert services.latest_version(criterion).wording == "Theirs."


def test_criteria_move_up_and_down(client_as, task):
    second = task.criteria.get(code="t101-02")
    url = reverse("rubrics:criterion_move", args=[second.pk, "up"])
    assert htmx(client_as(Role.AUTHOR)).post(url).status_code == 200
    assert list(task.criteria.order_by("order").values_list("code", flat=True)) == [
        "t101-02",
        "t101-01",
    ]


def test_removing_deletes_a_never_published_criterion_and_retires_a_published_one(
    client_as, published
):
    task = published.task
    client = htmx(client_as(Role.AUTHOR))
    services.add_criterion(task, "A new draft line.", 1, None)
    draft = task.criteria.get(code="t101-03")
    client.post(reverse("rubrics:criterion_delete", args=[draft.pk]))
    assert not Criterion.objects.filter(pk=draft.pk).exists()
    old = task.criteria.get(code="t101-02")
    response = client.post(reverse("rubrics:criterion_delete", args=[old.pk]))
    assert "retired" in response.content.decode()
    old.refresh_from_db()
    assert old.retired and "t101-02" in {line.code for line in published.effective_rubric()}


def test_consensus_criteria_are_edited_on_their_sub_competency_page(client_as, sub_competency):
    client = client_as(Role.AUTHOR)
    page = client.get(reverse("rubrics:consensus", args=[sub_competency.pk])).content.decode()
    assert f"Consensus criteria of {sub_competency}" in page
    url = reverse("rubrics:consensus_create", args=[sub_competency.pk])
    assert htmx(client).post(url, criterion_data("new")).status_code == 200
    assert sub_competency.consensus_criteria.get().code == f"{sub_competency.code}-01"


def test_universal_criteria_need_a_code_on_their_page(client_as, starter_framework):
    client = htmx(client_as(Role.AUTHOR))
    url = reverse("rubrics:universal_create", args=[starter_framework.code])
    response = client.post(url, criterion_data("new", code="x1"))
    assert response.status_code == 422
    assert "is not a universal criterion code" in response.content.decode()
    assert client.post(url, criterion_data("new", code="05u2")).status_code == 200
    assert Criterion.objects.filter(framework=starter_framework, code="05u2").exists()


def test_criteria_of_a_task_in_review_cannot_change(client_as, task, author):
    services.submit_for_review(task, author)
    criterion = task.criteria.get(code="t101-01")
    response = edit(htmx(client_as(Role.AUTHOR)), criterion, wording="Sneaky.")
    assert response.status_code == 409
    assert "is in review" in response.content.decode()
    assert services.latest_version(criterion).wording != "Sneaky."


def test_a_turn_level_criterion_keeps_its_rule_and_share_and_needs_the_share(client_as, task):
    url = reverse("rubrics:criterion_create", args=[task.pk])
    client = htmx(client_as(Role.AUTHOR))
    data = criterion_data("new", applies_to="turn", turn_rule="share")
    refused = client.post(url, data)
    assert refused.status_code == 422
    assert "needs a percentage" in refused.content.decode()
    response = client.post(url, data | {"new-turn_share": 60})
    assert response.status_code == 200
    assert "true of at least 60% of the turns" in response.content.decode()
    version = CriterionVersion.objects.get(criterion__code="t101-03")
    assert (version.applies_to, version.turn_rule, version.turn_share) == ("turn", "share", 60)
    edit(client, version.criterion, applies_to="turn", turn_rule="any", turn_share=60)
    version.refresh_from_db()
    assert (version.turn_rule, version.turn_share) == ("any", None)
