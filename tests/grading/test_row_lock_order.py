"""Which rows a grade save and a submission lock, and in which order: PostgreSQL only (SQLite
serialises writers anyway). A save that changed a submitted verdict took the study's results
revision and then waited for the study item, while a submission of the same item held the item
and waited for the revision: a deadlock, a 500 for one grader (bench.faults found it). Counting
an item's verdicts also locked its study's row, so every such save in a study waited for the
others; and a claim skipped the grader's own assignment while another session held its item."""

import threading
import time

import pytest
from django.db import DatabaseError, connection, transaction

from accounts.roles import Role
from grading import services, tallies
from grading.models import ResultsRevision, Study, StudyItem
from tests import factories
from tests.concurrency import run_together

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs row locks"),
]


def _another_session_waits_for_a_lock(timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # else read once a transaction
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


def test_counting_an_items_verdicts_locks_the_item_not_its_study(make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    item = study.items.get()
    counted, looked = threading.Event(), threading.Event()

    def count() -> None:
        with transaction.atomic():
            tallies.refresh([item.pk])
            counted.set()
            looked.wait(10)

    def look() -> None:
        try:
            assert counted.wait(10)
            with transaction.atomic():  # the study's row is free for its own writers
                Study.objects.select_for_update(nowait=True).get(pk=study.pk)
            with pytest.raises(DatabaseError), transaction.atomic():  # the item's is held
                StudyItem.objects.select_for_update(nowait=True).get(pk=item.pk)
        finally:
            looked.set()

    assert run_together(count, look) == [None, None]


def test_a_submitted_grade_changed_during_a_submission_of_its_response_waits_without_deadlock(
    make_user,
):
    first, second = make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)
    study = factories.study([first, second], responses=1, overlap=2)
    services.assign_study(study)
    mine = study.items.get().assignments.get(annotator=first)
    theirs = study.items.get().assignments.get(annotator=second)
    factories.complete(mine, first)
    services.submit(mine, by=first)
    factories.complete(theirs, second)
    version = factories.rubric_of(mine)[0]
    before = ResultsRevision.objects.of(study.pk)
    holding = threading.Event()

    def submission_under_way() -> None:
        """As submit() does: the item first, then the study's results revision."""
        try:
            with transaction.atomic():
                tallies.refresh([theirs.study_item_id])
                holding.set()
                assert _another_session_waits_for_a_lock(), "the save did not wait"
                # The save waits holding nothing taken next here (it held this: a deadlock).
                ResultsRevision.objects.select_for_update(nowait=True).get(study=study.pk)
                ResultsRevision.objects.bump(study.pk)
        finally:
            holding.set()

    def change_my_verdict() -> None:
        assert holding.wait(10)
        services.save_grade_line(
            mine, version.pk, verdict="fail", rationale="Misses the level.", by=first
        )

    assert run_together(submission_under_way, change_my_verdict) == [None, None]
    assert mine.grades.get(criterion_version=version).verdict == "fail"
    assert ResultsRevision.objects.of(study.pk) == before + 2


def test_a_grader_claiming_while_their_response_is_submitted_by_another_gets_it(make_user):
    """Claiming skips rows another session holds (a response being claimed by someone else);
    it skipped the grader's own assignment too while its study item was locked, so the grader
    was told there was nothing left to grade."""
    first, second = make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)
    study = factories.study([first, second], responses=1, overlap=2)
    services.assign_study(study)
    mine = study.items.get().assignments.get(annotator=first)
    theirs = study.items.get().assignments.get(annotator=second)
    holding, claimed = threading.Event(), threading.Event()
    found: list[object] = []

    def submission_under_way() -> None:
        with transaction.atomic():
            tallies.refresh([theirs.study_item_id])
            holding.set()
            claimed.wait(10)

    def claim() -> None:
        try:
            assert holding.wait(10)
            found.append(services.claim_next(study, first))
        finally:
            claimed.set()

    assert run_together(submission_under_way, claim) == [None, None]
    assert found == [mine]
