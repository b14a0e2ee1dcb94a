"""Domain errors get their HTTP status in one place for pages (l2annot.errors) and one for the
API (api.exceptions): the same refusal answers the same status in both."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from api.exceptions import exception_handler
from audit.editing import DeleteRefused, EditConflict
from core.refusals import Conflict, NotFound
from grading.adjudication import AdjudicationError
from grading.services import GradingError, Incomplete, NotYourAssignment, StudyClosed
from l2annot.errors import DomainErrorMiddleware, status_for
from rubrics.services import TaskLocked, WorkflowRefused


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NotYourAssignment(), 404),
        (StudyClosed("The study is closed."), 409),
        (TaskLocked("In review."), 409),
        (WorkflowRefused("No criteria."), 409),
        (GradingError("Choose Pass, Fail or N/A."), 422),
        (AdjudicationError("Choose Pass, Fail or N/A."), 422),
        (ValidationError({"comment": "Say what needs changing."}), 422),
    ],
)
def test_a_page_answers_each_kind_of_refusal_with_its_status(error, status):
    assert status_for(error) == status


def test_an_error_of_no_domain_kind_has_no_page_status():
    with pytest.raises(TypeError):
        status_for(KeyError("x"))


def middleware() -> DomainErrorMiddleware:
    return DomainErrorMiddleware(lambda request: HttpResponse())


def test_an_uncaught_not_found_is_the_404_page():
    with pytest.raises(Http404):
        middleware().process_exception(RequestFactory().get("/"), NotYourAssignment())


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_an_uncaught_conflict_is_a_409_with_its_message(rf, htmx):
    request = rf.get("/")
    request.htmx = htmx
    request.user = AnonymousUser()
    response = middleware().process_exception(request, Conflict("Closed since noon."))
    assert response.status_code == 409
    body = response.content.decode()
    assert "Closed since noon." in body
    assert ("<html" in body) is not htmx  # the fragment alone for htmx


def test_other_errors_are_left_to_django():
    assert middleware().process_exception(RequestFactory().get("/"), KeyError("x")) is None


def test_a_closed_study_is_a_conflict_only():
    assert issubclass(StudyClosed, Conflict) and not issubclass(StudyClosed, ValidationError)


def test_the_conflict_kinds_of_the_editing_layer_are_conflicts():
    assert issubclass(EditConflict, Conflict) and issubclass(DeleteRefused, Conflict)
    assert issubclass(NotYourAssignment, NotFound)


@pytest.mark.parametrize(
    ("error", "detail"),
    [
        (
            WorkflowRefused("No criteria.", "No instruction."),
            "The task's state does not allow this",
        ),
        (
            Incomplete([ValidationError("No criteria."), ValidationError("No instruction.")]),
            "The assignment is not complete",
        ),
    ],
)
def test_the_api_answers_a_conflict_with_problems_with_what_they_refuse_and_the_list(error, detail):
    response = exception_handler(error, {})
    assert response.status_code == 409
    assert response.data == {
        "detail": f"{detail}: see `problems`.",
        "problems": ["No criteria.", "No instruction."],
    }


def test_the_api_answers_a_conflict_without_problems_with_its_message():
    response = exception_handler(StudyClosed("The study is closed."), {})
    assert (response.status_code, response.data) == (409, {"detail": "The study is closed."})
