"""The demo study seeded by `make demo`."""

from collections import defaultdict

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import Role
from demo.judge_runs import seed_demo_judge_runs
from demo.study import JUDGE, NAME, seed_demo_study
from grading.models import Assignment, Grade, Study, TurnGrade
from judging.calibration import run_comparison, triage
from judging.models import JudgeConfig, JudgeRating, JudgeRun
from judging.units import study_units

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def seeded(module_db: None) -> None:
    """`manage.py seed_demo`, run once for the module's tests (each reads what it made)."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115


def test_seed_demo_makes_a_study_with_submitted_grades_that_disagree_somewhere(seeded):
    study = Study.objects.get(name=NAME)
    assert study.items.exists()
    submitted = Assignment.objects.filter(study_item__study=study, status="submitted")
    assert submitted.values("annotator").distinct().count() == 3
    verdicts = defaultdict(set)
    for item, version, verdict in Grade.objects.filter(assignment__in=submitted).values_list(
        "assignment__study_item", "criterion_version", "verdict"
    ):
        verdicts[item, version].add(verdict)
    assert any(len(v) > 1 for v in verdicts.values())
    assert any(len(v) == 1 for v in verdicts.values())
    # the dialogues of task 903 are graded turn by turn on its turn-level criteria
    turn_grades = TurnGrade.objects.filter(assignment__in=submitted)
    assert turn_grades.values("criterion_version").distinct().count() == 4
    assert turn_grades.values("turn__response").distinct().count() == 2
    # the Spanish task's ordinal criterion is rated on its scale
    levels = Grade.objects.filter(assignment__in=submitted, level__isnull=False)
    assert set(levels.values_list("criterion_version__criterion__task__language", flat=True)) == {
        "es"
    }
    assert seed_demo_study() == study  # idempotent


def test_the_demo_judge_scores_every_response_on_every_rating_question(seeded):
    study = Study.objects.get(name=NAME)
    ratings = JudgeRating.objects.filter(run__judge_model=JUDGE)
    assert ratings.count() == study.items.count() * study.likert_items.count()
    assert set(ratings.values_list("question", flat=True)) == set(
        study.likert_items.values_list("key", flat=True)
    )


def test_the_demo_seeds_a_judge_configuration_on_the_shipped_prompt(seeded):
    config = JudgeConfig.objects.get(name="demo-local-judge")
    assert config.model.startswith("openai-api/") and config.temperature == 0
    assert str(config.prompt) == "reference-guided@1"


@pytest.mark.also_on_sqlite  # the demo's database: `make run` serves it from SQLite
def test_the_demo_study_has_two_judge_runs_to_compare_and_triage(seeded, client_as):
    study = Study.objects.get(name=NAME)
    v1, v2 = seed_demo_judge_runs(study)  # idempotent: the two runs seed_demo made
    assert JudgeRun.objects.filter(run_id__startswith="demo-judge-").count() == 2
    assert (str(v1.prompt), str(v2.prompt)) == ("reference-guided@1", "critique-then-verdict@1")
    assert v1.config.model_family == v2.model_family == "llama"
    assert (str(v1), str(v2)) == ("demo-local-judge v1", "demo-local-critique v1")
    units = study_units(study)  # a turn-level criterion on a dialogue: a call per tutor turn
    assert v1.calls_total == len(units) > len({(u.response_pk, u.version_pk) for u in units})
    unreadable = v1.verdicts.per_response().filter(verdict__isnull=True, level__isnull=True)
    assert 1 <= unreadable.count() <= v1.unparseable == 2
    # the calls on a dialogue's turns are folded into one verdict on the response, and each
    # turn's verdict is kept beside it
    responses_and_criteria = len({(u.response_pk, u.version_pk) for u in units})
    responses = [run.verdicts.per_response().count() for run in (v1, v2)]
    assert responses == [responses_and_criteria] * 2
    turns = sum(1 for u in units if u.turn is not None)
    assert turns and [run.verdicts.per_turn().count() for run in (v1, v2)] == [turns] * 2
    pair = run_comparison(study, [v1, v2]).pairs[0]
    assert pair.overall.test.second_only > pair.overall.test.first_only  # v2 agrees more
    assert triage(study, v1).units and triage(study, v2).units
    maintainer = client_as(Role.MAINTAINER)
    page = maintainer.get(reverse("judging:judge", args=[study.pk])).content.decode()
    assert page.count(reverse("judging:triage", args=[study.pk, v1.pk])) == 1
    compare = maintainer.get(
        reverse("judging:compare", args=[study.pk]), {"run": [v1.pk, v2.pk]}
    ).content.decode()
    assert "agrees with the experts more than" in compare
    # The demo judge's levels on the Spanish task's ordinal criterion are compared with the
    # experts' levels on its calibration page.
    calibration = maintainer.get(reverse("judging:calibration", args=[study.pk, v2.pk]))
    body = calibration.content.decode()
    assert "Ordinal criteria: the judge" in body and "Ordinal alpha: experts" in body
    # The dialogues' turn-level criteria are compared turn by turn.
    assert "Turn-level criteria: the judge on each tutor turn" in body
    assert "graded turns, in 2 dialogues" in body
