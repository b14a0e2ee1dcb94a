"""Rating questions have a stable key that files (a judge's 1-5 ratings) name them by."""

import pytest
from django.db import IntegrityError

from accounts.roles import Role
from grading import services
from grading.models import LikertItem, question_keys


def test_keys_are_the_first_words_of_the_prompt_and_unique():
    keys = question_keys(["Is this task authentic?", "Is this task authentic?", "?"])
    assert keys == ["is-this-task-authentic", "is-this-task-authentic-2", "question"]


def test_a_long_prompt_gives_a_key_cut_at_a_word():
    (key,) = question_keys(["The criteria are adequate for judging a response to this task."])
    assert key == "the-criteria-are-adequate-for-judging-a"
    assert len(key) <= 46


@pytest.mark.django_db
def test_a_new_study_asks_the_default_questions_by_short_keys(starter_framework, make_user):
    study = services.create_study(
        name="S", framework=starter_framework, responses=[], annotators=[make_user(Role.ANNOTATOR)]
    )
    assert list(study.likert_items.values_list("key", flat=True)) == [
        "authenticity",
        "criteria-adequacy",
    ]


@pytest.mark.django_db
def test_two_questions_of_one_study_cannot_share_a_key(starter_framework, make_user):
    study = services.create_study(
        name="S", framework=starter_framework, responses=[], annotators=[], likert_prompts=["A"]
    )
    with pytest.raises(IntegrityError):
        LikertItem.objects.create(study=study, key="a", prompt="Another")
