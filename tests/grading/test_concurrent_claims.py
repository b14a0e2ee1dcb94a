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

    def work(grader) -> None:  # type: ignore[no-untyped-def]
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
