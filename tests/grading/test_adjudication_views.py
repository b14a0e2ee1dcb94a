"""The adjudication screens: the list of disagreements and the page of one pair."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication
from grading.models import GoldVerdict, Grade
from grading.views.adjudication import code_options
from rubrics import services as rubric_services
from taxonomy.models import ContextVariable
from tests import factories
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR) for _ in range(3)]


def list_url(study) -> str:
    return reverse("grading:adjudication", args=[study.pk])


def pair_url(study, row) -> str:
    return reverse("grading:adjudicate", args=[study.pk, row["item"], row["version"]])


def queries_for(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_list_shows_each_disagreement_with_its_counts(client_as, graders):
    study = factories.graded_study(graders, ["pass", "pass", "fail"], responses=2)
    html = client_as(Role.MAINTAINER).get(list_url(study)).content.decode()
    assert "6 disagreements" in html
    for row in adjudication.disagreements(study):
        assert f'id="pair-{row["item"]}-{row["version"]}"' in html
        assert pair_url(study, row) in html
    assert "<td>2</td><td>1</td><td>0</td>" in html


def test_the_list_takes_the_same_number_of_queries_for_few_and_many_pairs(
    client_as, graders, make_user
):
    client = client_as(Role.MAINTAINER)
    few = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    many = factories.graded_study(graders, ["pass", "fail", "na"], responses=8)
    assert queries_for(client, list_url(few)) == queries_for(client, list_url(many))
    assert queries_for(client, list_url(many) + "?page=2") == queries_for(client, list_url(few))


def test_the_list_filters_by_criterion_as_an_htmx_fragment(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=2)
    code = adjudication.disagreeing_codes(study)[0]
    reply = htmx(client_as(Role.ADMIN)).get(list_url(study), {"criterion": code})
    html = reply.content.decode()
    assert reply.status_code == 200
    assert "<html" not in html and 'id="disagreements"' in html
    assert "1 disagreement<" in html
    assert f"<code>{code}</code>" in html


def test_annotators_may_not_see_the_list_or_record_a_verdict(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    row = adjudication.next_unresolved(study)
    client = client_as(Role.ANNOTATOR)
    assert client.get(list_url(study)).status_code == 403
    assert client.get(pair_url(study, row)).status_code == 403
    reply = client.post(pair_url(study, row), {"verdict": "pass", "note": "", "revision": 0})
    assert reply.status_code == 403
    assert not GoldVerdict.objects.exists()


def test_the_pair_page_shows_task_response_criterion_and_every_rationale(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    row = adjudication.next_unresolved(study)
    item = study.items.get(pk=row["item"])
    Grade.objects.filter(assignment__annotator=graders[1], criterion_version=row["version"]).update(
        rationale="Too long for beginners."
    )
    html = client_as(Role.MAINTAINER).get(pair_url(study, row)).content.decode()
    assert item.rubric_version.instruction in html
    assert "<strong>Warm-up</strong>" in html  # the response, rendered
    version = item.rubric_version.items.get(criterion_version=row["version"]).criterion_version
    assert version.wording in html and version.passes in html
    assert "Too long for beginners." in html
    assert [f"<strong>Grader {n}</strong>" in html for n in (1, 2, 3)] == [True] * 3
    assert not any(g.username in html for g in graders)
    assert "secret-model-x" not in html
    spanish = (
        client_as(Role.MAINTAINER).get(pair_url(study, row), HTTP_ACCEPT_LANGUAGE="es").content
    ).decode()
    assert "<strong>Calificador/a 3</strong>" in spanish and "Grader 3" not in spanish


def test_grader_names_are_shown_when_the_study_allows_it(client_as, graders):
    study = factories.graded_study(
        graders, ["pass", "fail", "fail"], responses=1, show_grader_names_to_adjudicator=True
    )
    html = client_as(Role.MAINTAINER).get(pair_url(study, adjudication.next_unresolved(study)))
    assert all(f"<strong>{g.username}</strong>" in html.content.decode() for g in graders)


def test_a_criterion_outside_the_responses_rubric_is_not_found(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=2)
    first, second = study.items.order_by("pk")
    other = second.rubric_version.items.first().criterion_version_id
    url = reverse("grading:adjudicate", args=[study.pk, first.pk, other])
    assert client_as(Role.MAINTAINER).get(url).status_code == 404


def test_recording_a_verdict_with_htmx_swaps_in_the_next_disagreement(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    first = adjudication.next_unresolved(study)
    reply = htmx(client_as(Role.MAINTAINER)).post(
        pair_url(study, first), {"verdict": "fail", "note": "Clear miss.", "revision": 0}
    )
    following = adjudication.next_unresolved(study)
    html = reply.content.decode()
    assert reply.status_code == 200
    assert GoldVerdict.objects.get().verdict == "fail"
    assert following["version"] != first["version"]
    assert reply["HX-Push-Url"] == pair_url(study, following)
    assert "<html" not in html and 'id="pair"' in html
    assert f"Adjudicate <code>{following['code']}</code>" in html
    assert "Gold verdict recorded" in html and "2 disagreements without" in html


def test_the_last_verdict_says_nothing_is_left(client_as, graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    maintainer = make_user(Role.MAINTAINER)
    rows = list(adjudication.disagreements(study))
    for row in rows[:-1]:
        item = study.items.get(pk=row["item"])
        adjudication.record_gold_verdict(
            item, row["version"], verdict="pass", note="", by=maintainer, base_revision=0
        )
    reply = htmx(client_as(Role.MAINTAINER)).post(
        pair_url(study, rows[-1]), {"verdict": "na", "revision": 0}
    )
    assert "No disagreement left" in reply.content.decode()
    assert reply["HX-Push-Url"] == list_url(study)


def test_without_javascript_recording_redirects_to_the_next_pair(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    first = adjudication.next_unresolved(study)
    reply = client_as(Role.MAINTAINER).post(
        pair_url(study, first) + "?layer=task", {"verdict": "pass", "revision": 0}
    )
    assert reply.status_code == 302
    assert reply.url == pair_url(study, adjudication.next_unresolved(study)) + "?layer=task"


def test_a_stale_save_is_a_conflict_showing_the_current_verdict(client_as, graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    row = adjudication.next_unresolved(study)
    other = make_user(Role.MAINTAINER)
    adjudication.record_gold_verdict(
        study.items.get(pk=row["item"]),
        row["version"],
        verdict="pass",
        note="",
        by=other,
        base_revision=0,
    )
    reply = htmx(client_as(Role.MAINTAINER)).post(
        pair_url(study, row), {"verdict": "fail", "revision": 0}
    )
    html = reply.content.decode()
    assert reply.status_code == 409
    assert f"{other.username} recorded “Pass” meanwhile" in html
    assert 'name="revision" value="1"' in html  # saving again now replaces it knowingly
    assert GoldVerdict.objects.get().verdict == "pass"


def test_a_missing_verdict_is_refused_with_the_form(client_as, graders):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    row = adjudication.next_unresolved(study)
    reply = htmx(client_as(Role.MAINTAINER)).post(pair_url(study, row), {"revision": 0})
    assert reply.status_code == 422
    assert "This field is required." in reply.content.decode()
    assert not GoldVerdict.objects.exists()


def test_the_pair_page_shows_the_teaching_context_the_graders_saw(client_as):
    study = factories.graded_demo_study(responses=1)
    row = adjudication.next_unresolved(study)
    task = study.items.get(pk=row["item"]).response.task
    cefr = ContextVariable.objects.get(key="cefr_level", framework=task.framework)
    rubric_services.set_context_value(task, cefr, "C1", None)  # a draft: graders never saw it
    html = client_as(Role.MAINTAINER).get(pair_url(study, row)).content.decode()
    context = html[html.index('<dl class="context">') :]
    context = context[: context.index("</dl>")]
    assert "<dt>CEFR level</dt><dd>B1</dd>" in context
    assert "<dt>Learner age</dt><dd>adults (26-64)</dd>" in context
    assert "C1" not in context


def test_the_criterion_filter_options_escape_each_code_and_mark_the_chosen_one():
    html = code_options(["<b>", "A&1", "U01"], "A&1")
    assert html == (
        '<option value="&lt;b&gt;">&lt;b&gt;</option>'
        '<option value="A&amp;1" selected>A&amp;1</option>'
        '<option value="U01">U01</option>'
    )
