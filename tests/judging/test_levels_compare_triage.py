"""Ordinal criteria on the comparison and triage pages: each run's levels against the gold
levels and the experts' median level, and the responses where a run's level differs."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from agreement.models import AnalysisSettings
from grading import services
from grading.adjudication import record_gold_verdict
from grading.models import Study, Verdict
from judging.calibration import run_comparison, triage
from judging.models import JudgeRun, JudgeVerdict
from tests import factories
from tests.reference_packages import cohen_kappa_score

pytestmark = pytest.mark.django_db

# Levels on the 0-4 scale per response: the two experts', then each run's.
EXPERTS = ([0, 2, 3, 4, 1, 2], [1, 2, 3, 2, 1, 4])
RUNS = {"close": [0, 2, 3, 3, 1, 3], "far": [2, 0, 3, 4, 4, 1]}
GOLD = {1: 2, 3: 3}  # response number: adjudicated level


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    sync_roles()
    graders = [create_user_with_role(f"ranker{n}", f"pw-ranker{n}", Role.ANNOTATOR) for n in "01"]
    task = factories.published_task(criteria=2, scale=(0, 4))
    responses = [factories.response(task, "m") for _ in EXPERTS[0]]
    study = services.create_study(
        name="Levels compared",
        framework=task.framework,
        responses=responses,
        annotators=graders,
        overlap=2,
        require_rationale_on_fail=False,
        likert_prompts=(),
    )
    services.assign_study(study)
    AnalysisSettings.objects.create(study=study, resamples=50)
    number = {r.pk: n for n, r in enumerate(responses)}
    runs = {name: JudgeRun.objects.create(judge_model="lv", run_id=name) for name in RUNS}
    for index, grader in enumerate(graders):
        while (assignment := services.claim_next(study, grader)) is not None:
            n = number[assignment.study_item.response_id]
            for version in factories.rubric_of(assignment):
                level = EXPERTS[index][n] if version.is_ordinal else None
                verdict = None if version.is_ordinal else Verdict.PASS
                services.save_grade(
                    assignment, version.pk, verdict=verdict, level=level, rationale="", by=grader
                )
                if index == 0:
                    for name, run in runs.items():
                        JudgeVerdict.objects.create(
                            run=run,
                            response_id=assignment.study_item.response_id,
                            criterion_version=version,
                            verdict=None if version.is_ordinal else True,
                            level=RUNS[name][n] if version.is_ordinal else None,
                        )
            services.submit(assignment, by=grader)
    adjudicator = create_user_with_role("ranker-gold", "pw-ranker-gold", Role.MAINTAINER)
    items = sorted(study.items.all(), key=lambda item: item.response_id)
    ordinal = next(v for v in factories.rubric_of(items[0].assignments.first()) if v.is_ordinal)
    for n, level in GOLD.items():
        record_gold_verdict(
            items[n], ordinal.pk, verdict="", level=level, note="", by=adjudicator,
            base_revision=0,
        )  # fmt: skip
    return {"study": study.pk} | {name: run.pk for name, run in runs.items()}


@pytest.fixture
def study(world) -> Study:
    return Study.objects.get(pk=world["study"])


@pytest.fixture
def runs(world) -> list[JudgeRun]:
    return [JudgeRun.objects.get(pk=world[name]) for name in RUNS]


def test_the_comparison_gives_each_runs_levels_against_gold_and_the_experts_median(study, runs):
    comparison = run_comparison(study, runs)
    (criterion,) = comparison.ordinal
    assert criterion.scale == (0, 4)
    median = [min(a, b) for a, b in zip(*EXPERTS, strict=True)]  # lower median of two
    for summary, name in zip(comparison.runs, RUNS, strict=True):
        (levels,) = summary.levels
        assert levels.n_shared == 6
        judged = RUNS[name]
        experts = levels.vs_experts
        assert experts.n == 6
        assert experts.exact.numerator == sum(j == m for j, m in zip(judged, median, strict=True))
        assert experts.quadratic_kappa.value == pytest.approx(
            cohen_kappa_score(median, judged, weights="quadratic", labels=range(5))
        )
        gold = levels.vs_gold
        assert gold.n == 2
        differences = [judged[n] - level for n, level in GOLD.items()]
        assert gold.bland_altman.mean_difference == pytest.approx(sum(differences) / 2)
    close, far = (summary.levels[0].vs_experts for summary in comparison.runs)
    assert (close.within_one.numerator, far.within_one.numerator) == (6, 2)


def test_the_compare_page_shows_the_level_figures_in_bounded_queries(
    study, runs, client_as, django_assert_max_num_queries
):
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:compare", args=[study.pk])
    run_comparison(study, runs)  # computed once; the page reads the cache
    client.get(url, {"run": [r.pk for r in runs]})
    with django_assert_max_num_queries(16):
        page = client.get(url, {"run": [r.pk for r in runs]})
    text = page.content.decode()
    section = text[text.index('id="levels-title"') :]
    assert "Ordinal criteria: each run's levels" in section
    assert "Against the experts' median level" in section
    # The close run: 4 of 6 exact against the median (0, 2, 3, 2, 1, 2), all within one.
    assert "<td>6</td>\n  <td>67%</td>\n  <td>100%</td>" in section


def test_the_triage_page_lists_the_responses_where_a_runs_level_differs(
    study, runs, client_as, django_assert_max_num_queries
):
    far = runs[1]
    found = triage(study, far)
    # Far against the experts' strict majority (none where the two differ) and gold: response
    # 0 (experts 0 and 1: no majority; no gold): agrees with nothing to differ from; response
    # 1 (majority 2, gold 2): 0, a miss of -2; 2 (majority 3): agrees; 3 (gold 3): 4, +1;
    # 4 (majority 1): 4, +3; 5 (no majority, no gold): nothing to differ from.
    assert [(line.item, line.level, line.distance) for line in found.levels] == [
        (4, 4, 3),
        (1, 0, -2),
        (3, 4, 1),
    ]
    assert found.levels[0].experts == (1, 1) and found.levels[1].gold == 2
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:triage", args=[study.pk, far.pk])
    client.get(url)
    with django_assert_max_num_queries(21):
        page = client.get(url)
    text = page.content.decode()
    section = text[text.index('id="levels-title"') :]
    assert "3 responses where the judge" in section
    assert "<td><strong>4</strong></td>\n      <td>1, 1</td>\n      <td>1</td>" in section
    assert "<td>+3</td>" in section and "<td>-2</td>" in section
