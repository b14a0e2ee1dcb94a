"""Agreement on ordinal criteria: ordinal alpha and pooled weighted kappa, with intervals."""

import krippendorff
import numpy as np
import pytest
from django.urls import reverse

from accounts.roles import Role
from core.analysis.ordinal_criteria import (
    KAPPA_MINIMUM_RESPONSES,
    level_counts,
    ordinal_agreement,
    pair_tables,
)
from core.stats.kappa import cohen_kappa_from_table, contingency_table
from grading import services
from grading.models import Assignment
from tests import factories

# Two graders per response on a 0-4 scale.
FIRST = [0, 1, 2, 3, 4, 2, 1, 3, 4, 0, 2, 3]
SECOND = [0, 2, 2, 3, 3, 2, 0, 4, 4, 1, 2, 2]


def _ratings(first=FIRST, second=SECOND):
    units = [u for u in range(len(first)) for _ in (0, 1)]
    levels = [level for pair in zip(first, second, strict=True) for level in pair]
    return units, levels


def test_ordinal_alpha_matches_the_krippendorff_package():
    units, levels = _ratings()
    result = ordinal_agreement("c", (0, 4), units, levels, n_resamples=200)
    expected = krippendorff.alpha(
        reliability_data=np.array([FIRST, SECOND], dtype=float),
        level_of_measurement="ordinal",
        value_domain=[0, 1, 2, 3, 4],
    )
    assert result.alpha.estimate.value == pytest.approx(expected)
    assert (result.n_units, result.n_ratings) == (12, 24)
    # 12 responses: below the 20 from which the interval's coverage was simulated.
    assert result.alpha.low is None
    assert result.alpha.unreliable_reason == (
        "interval unreliable: 12 responses (coverage checked from 20)"
    )


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_two_graders_kappa_is_cohens_weighted_kappa_of_the_symmetrised_table(weights):
    units, levels = _ratings()
    result = ordinal_agreement("c", (0, 4), units, levels, n_resamples=200)
    table = contingency_table(np.array(FIRST), np.array(SECOND), 5)
    expected = cohen_kappa_from_table(table + table.T, weights).value
    kappa = result.kappa_linear if weights == "linear" else result.kappa_quadratic
    assert kappa.estimate.value == pytest.approx(expected)
    assert kappa.low is None and kappa.unreliable_reason.startswith(
        "interval unreliable: 12 responses"
    )


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_a_weighted_kappa_interval_is_shown_from_its_minimum_of_responses(weights):
    minimum = KAPPA_MINIMUM_RESPONSES[weights]
    repeats = -(-minimum // len(FIRST))  # the 12 responses repeated up to the minimum
    first, second = (FIRST * repeats)[:minimum], (SECOND * repeats)[:minimum]
    units, levels = _ratings(first, second)
    enough = ordinal_agreement("c", (0, 4), units, levels, n_resamples=200)
    kappa = enough.kappa_linear if weights == "linear" else enough.kappa_quadratic
    assert kappa.unreliable_reason is None
    assert kappa.low <= kappa.estimate.value <= kappa.high
    fewer = ordinal_agreement("c", (0, 4), units[:-2], levels[:-2], n_resamples=200)
    kappa = fewer.kappa_linear if weights == "linear" else fewer.kappa_quadratic
    assert kappa.low is None
    assert kappa.unreliable_reason == (
        f"interval unreliable: {minimum - 1} responses (coverage checked from {minimum})"
    )


def test_pair_tables_count_every_ordered_pair_of_different_graders():
    counts = level_counts([7, 7, 7], [1, 1, 2], 1, 3)  # three graders of one response
    (table,) = pair_tables(counts)
    assert table.tolist() == [[2, 2, 0], [2, 0, 0], [0, 0, 0]]


def test_perfect_agreement_on_one_level_everywhere_is_undefined_not_one():
    result = ordinal_agreement("c", (1, 5), [1, 1, 2, 2], [3, 3, 3, 3], n_resamples=50)
    assert result.kappa_linear.estimate.value is None
    assert result.alpha.estimate.value is None


@pytest.mark.django_db
def test_the_agreement_page_shows_each_ordinal_criterion(make_user, client_as):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    tasks = [factories.published_task(scale=(0, 4)) for _ in range(3)]
    study = services.create_study(
        name="Scaled",
        framework=tasks[0].framework,
        responses=[factories.response(t) for t in tasks],
        annotators=graders,
        overlap=2,
    )
    services.assign_study(study)
    for index, grader in enumerate(graders):
        for n, assignment in enumerate(Assignment.objects.filter(annotator=grader)):
            factories.complete(assignment, grader, verdict="pass")
            scaled = factories.rubric_of(assignment)[0]
            level = (n + index) % 5
            services.save_grade(
                assignment, scaled.pk, verdict=None, level=level, rationale="ok", by=grader
            )
            services.submit(assignment, by=grader)
    page = client_as(Role.VIEWER).get(reverse("agreement:study", args=[study.pk]))
    html = page.content.decode()
    assert "Ordinal criteria" in html
    for task in tasks:
        assert f"<code>{task.key}-01</code></th><td>0\u20134</td><td>1</td><td>2</td>" in html


def test_ordinal_agreement_counts_what_it_leaves_out():
    result = ordinal_agreement("c", (1, 5), [1, 1, 2], [3, 4, 5], n_resamples=20, n_na=2)
    assert (result.n_units, result.n_single, result.n_na) == (1, 1, 2)
    nothing = ordinal_agreement("c", (1, 5), [], [], n_resamples=20, n_na=3)
    assert (nothing.n_units, nothing.n_na) == (0, 3) and nothing.alpha.estimate.value is None


@pytest.mark.django_db
def test_n_a_on_an_ordinal_criterion_is_counted_as_left_out(make_user, client_as):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    task = factories.published_task(scale=(0, 4))
    study = services.create_study(
        name="Scaled N/A",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=graders,
        overlap=2,
    )
    services.assign_study(study)
    for index, grader in enumerate(graders):
        assignment = Assignment.objects.get(annotator=grader)
        factories.complete(assignment, grader, verdict="pass")
        scaled = factories.rubric_of(assignment)[0]
        choice = {"verdict": None, "level": 2} if index == 0 else {"verdict": "na", "level": None}
        services.save_grade(assignment, scaled.pk, rationale="ok", by=grader, **choice)
        services.submit(assignment, by=grader)
    html = client_as(Role.VIEWER).get(reverse("agreement:study", args=[study.pk])).content.decode()
    assert (
        f"<code>{task.key}-01</code></th><td>0\u20134</td><td>0 "
        '<span class="muted">(1 left out: one level)</span> '
        '<span class="muted">(1 N/A grade left out)</span></td>'
    ) in html
    # The downloads and the API carry the same row with its n and what it left out.
    client = client_as(Role.MAINTAINER)
    report = client.get(reverse("agreement:study_report_json", args=[study.pk])).json()
    api = client.get(f"/api/v1/studies/{study.pk}/agreement/").json()
    for document in (report, api):
        (row,) = document["ordinal criteria"]
        assert row["code"] == f"{task.key}-01"
        assert (row["responses"], row["responses left out (one level)"]) == (0, 1)
        assert (row["N/A grades left out"], row["levels"]) == (1, 0)
