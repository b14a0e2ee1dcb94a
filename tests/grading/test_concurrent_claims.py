"""claim_next under real concurrency: PostgreSQL only (SQLite serialises writers anyway)."""

import threading
from collections import Counter

import pytest
from django.db import connection

from accounts.roles import Role
from grading import services
from grading.models import Assignment
from tests import factories

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs row locks"),
]


def test_concurrent_claims_never_give_an_item_more_than_k_graders(make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(8)]
    study = factories.study([], responses=5, overlap=3)
    for grader in graders:
        study.pool.create(annotator=grader)
    start = threading.Barrier(len(graders))
    errors: list[BaseException] = []

    def work(grader) -> None:
        try:
            start.wait()
            while (assignment := services.claim_next(study, grader)) is not None:
                factories.complete(assignment, grader)
                services.submit(assignment, by=assignment.annotator)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(g,)) for g in graders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    per_item = Counter(Assignment.objects.values_list("study_item", flat=True))
    assert sorted(per_item.values()) == [3] * 5
    assert Assignment.objects.filter(status=Assignment.Status.SUBMITTED).count() == 15


def test_two_disagreeing_graders_submitting_at_once_add_one_grader_not_two(make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(4)]
    study = factories.study(graders[:2], responses=1, overlap=2, escalation="any", escalation_cap=3)
    services.assign_study(study)
    for grader in graders[2:]:
        study.pool.create(annotator=grader)
    pair = list(Assignment.objects.order_by("annotator"))
    for assignment, verdict in zip(pair, ["pass", "fail"], strict=True):
        factories.complete(assignment, assignment.annotator, verdict)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def work(assignment: Assignment) -> None:
        try:
            start.wait()
            services.submit(assignment, by=assignment.annotator)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(a,)) for a in pair]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Assignment.objects.count() == 3  # one more grader, not two (the cap is 3 anyway)
    assert study.items.get().graders_wanted == 3
