"""l2annot.htmx: the one place deciding between the whole page, an htmx fragment and a redirect."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from l2annot.htmx import redirect_to, render_page, respond

pytestmark = pytest.mark.django_db

PAGE = "409.html"  # a page with one partial, `refusal`
CONTEXT = {"message": "Closed since noon."}


def request(method: str = "get", **headers: str):
    made = getattr(RequestFactory(), method)("/", headers=headers)
    made.user = AnonymousUser()
    made.htmx = HtmxDetails(made)
    return made


def is_whole_page(response) -> bool:
    return "<html" in response.content.decode()


def test_htmx_gets_the_fragment_and_a_plain_request_the_whole_page():
    fragment = render_page(request(HX_Request="true"), PAGE, CONTEXT, fragment="refusal")
    whole = render_page(request(), PAGE, CONTEXT, fragment="refusal")
    assert not is_whole_page(fragment) and "Closed since noon." in fragment.content.decode()
    assert is_whole_page(whole)
    assert fragment["Vary"] == whole["Vary"] == "HX-Request"


def test_a_history_restore_gets_the_whole_page():
    restore = request(HX_Request="true", HX_History_Restore_Request="true")
    assert is_whole_page(render_page(restore, PAGE, CONTEXT, fragment="refusal"))


def test_a_redirect_is_a_302_or_for_htmx_an_hx_redirect():
    plain = redirect_to(request("post"), "/next/")
    htmx = redirect_to(request("post", HX_Request="true"), "/next/")
    assert (plain.status_code, plain["Location"]) == (302, "/next/")
    assert (htmx.status_code, htmx["HX-Redirect"]) == (200, "/next/")
    assert plain["Vary"] == htmx["Vary"] == "HX-Request"


def test_an_action_redirects_a_plain_post_that_succeeded_and_shows_a_refusal_in_full():
    done = respond(request("post"), PAGE, CONTEXT, fragment="refusal", done_url="/done/")
    assert done.status_code == 302 and done["Location"] == "/done/"
    refused = respond(
        request("post"),
        PAGE,
        {"message": "Taken."},
        fragment="refusal",
        done_url="/done/",
        status=409,
        page_context=lambda: {"message": "overridden by the action's context"},
    )
    assert refused.status_code == 409 and is_whole_page(refused)
    assert "Taken." in refused.content.decode()


def test_an_action_answers_htmx_with_the_fragment_whatever_the_outcome():
    for status in (200, 409):
        answer = respond(
            request("post", HX_Request="true"),
            PAGE,
            CONTEXT,
            fragment="refusal",
            done_url="/done/",
            status=status,
            page_context=lambda: pytest.fail("the whole page's context is not built"),
        )
        assert answer.status_code == status and not is_whole_page(answer)
