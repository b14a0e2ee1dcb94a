"""save_responses under real concurrency: PostgreSQL only (SQLite serialises writers anyway).
A study created while an import checks a response, or another import changing it at the same
moment, never lets a graded text be rewritten."""

import threading

import pytest
from django.db import connection, transaction

from accounts.roles import Role
from grading import services as grading
from grading.models import Study
from rubrics.responses import (
    Outcome,
    ResponseChangedMeanwhile,
    ResponseSpec,
    save_responses,
)
from rubrics.services import record_response
from tests import factories

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs row locks"),
]

HOLD = 1.0  # seconds the other transaction keeps its rows before it commits


def in_other_transaction(work):
    """Run `work` in a thread's own transaction, committed HOLD seconds after `work` returns;
    returns the thread and an event set once `work` is done (its rows written, uncommitted)."""
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with transaction.atomic():
                work()
                done.set()
                threading.Event().wait(HOLD)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
            done.set()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, done, errors


def test_a_study_created_while_an_import_checks_the_response_gets_the_version_it_holds():
    task = factories.published_task()
    answer, _ = record_response(task, "model-a", text="As first imported.", external_id="r1")

    thread, done, errors = in_other_transaction(
        lambda: grading.create_study(
            name="Racing", framework=task.framework, responses=[answer], annotators=[]
        )
    )
    done.wait()
    (saved,) = save_responses([ResponseSpec(task, "model-a", "r1", text="Changed meanwhile.")])
    thread.join()

    assert errors == []
    # The import waited for the study's transaction, then saw the study hold the response.
    assert saved.outcome == Outcome.NEW_VERSION
    study = Study.objects.get(name="Racing")
    assert study.items.get().response.text == "As first imported."


def test_two_imports_changing_a_held_response_at_once_never_both_write(make_user):
    study = factories.graded_imported_study([make_user(Role.ANNOTATOR)])
    task = study.items.get().response.task

    thread, done, errors = in_other_transaction(
        lambda: save_responses(
            [ResponseSpec(task, "model-a", "r1", "family-a", "1.0", text="First change.")]
        )
    )
    done.wait()
    with pytest.raises(ResponseChangedMeanwhile, match="'r1' was changed by another import"):
        save_responses(
            [ResponseSpec(task, "model-a", "r1", "family-a", "1.0", text="Second change.")]
        )
    thread.join()

    assert errors == []
    texts = study.items.get().response.task.responses.order_by("version")
    assert [(r.version, r.text) for r in texts] == [
        (1, factories.TEXT_V1),
        (2, "First change."),
    ]
