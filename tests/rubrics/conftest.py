"""Small rubrics built with the services, the way the authoring screens build them."""

import pytest

from accounts.roles import Role
from rubrics import services
from rubrics.models import Criterion, Task
from taxonomy.models import Framework, SubCompetency


@pytest.fixture
def author(make_user):
    return make_user(Role.AUTHOR)


@pytest.fixture
def maintainer(make_user):
    return make_user(Role.MAINTAINER)


@pytest.fixture
def sub_competency(starter_framework: Framework) -> SubCompetency:
    return SubCompetency.objects.get(competency__framework=starter_framework, code="02a")


@pytest.fixture
def universal(starter_framework: Framework, author) -> list[Criterion]:
    return [
        services.add_criterion(starter_framework, "Suits the learners' age.", 4, author, "01u1"),
        services.add_criterion(
            starter_framework, "Assumes a projector the class does not have.", -3, author, "07u1"
        ),
    ]


@pytest.fixture
def consensus(sub_competency: SubCompetency, author) -> list[Criterion]:
    return [
        services.add_criterion(sub_competency, "Checks what learners can already do.", 5, author),
        services.add_criterion(sub_competency, "Uses a single test to label a level.", -2, author),
    ]


@pytest.fixture
def task(sub_competency, author, universal, consensus) -> Task:
    """A draft task ready for review: reference answer and two criteria of its own."""
    task = services.create_task(
        sub_competency,
        "t101",
        "Plan a five-minute diagnostic chat for a new adult learner.",
        author,
        reference_answer="Start with open questions about work, then ...",
    )
    services.add_criterion(task, "Asks about the learner's goals.", 3, author)
    services.add_criterion(task, "Gives a time plan.", 1, author)
    return task


@pytest.fixture
def published(task, author, maintainer):
    """`task` after submission and approval; returns its first RubricVersion."""
    services.submit_for_review(task, author)
    return services.approve(task, maintainer)
