"""The demo study seeded by `make demo`."""

from collections import defaultdict

import pytest
from django.core.management import call_command

from demo.study import JUDGE, NAME, seed_demo_study
from grading.models import Assignment, Grade, Study
from judging.models import JudgeConfig, JudgeRating

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
