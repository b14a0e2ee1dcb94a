"""The Python examples in docs/api.md (fenced blocks starting with `# doc-test`) run, in order,
against a live server, as a Maintainer with a token, over a framework with a graded study: the
documentation cannot drift from the API."""

import re
from datetime import timedelta

import pytest
from django.conf import settings

from accounts.models import ApiToken
from accounts.roles import Role
from grading import services
from grading.models import Study
from rubrics.models import Response
from tests import factories
from tests.factories import make_framework

DOC = settings.BASE_DIR / "docs" / "api.md"


def doc_examples() -> list[str]:
    blocks = re.findall(r"```python\n(# doc-test\n.*?)```", DOC.read_text(), flags=re.S)
    return blocks


def test_the_doc_has_examples():
    assert len(doc_examples()) >= 4


@pytest.mark.django_db(transaction=True)
def test_the_python_examples_in_the_api_doc_run(live_server, make_user, monkeypatch, capsys):
    make_framework()
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    graded = factories.graded_study(graders, ["pass", "pass", "fail"])
    # An annotator with one response to grade, in an older study (the reports' examples take
    # the newest study, the graded one).
    grader = make_user(Role.ANNOTATOR)
    to_grade = services.create_study(
        name="To grade",
        framework=graded.framework,
        responses=[graded.items.first().response],
        annotators=[grader],
        overlap=1,
    )
    services.assign_study(to_grade)
    Study.objects.filter(pk=to_grade.pk).update(created_at=graded.created_at - timedelta(days=1))
    monkeypatch.setenv("L2ANNOT_GRADER_TOKEN", ApiToken.issue(grader, "docs")[1])
    for response in Response.objects.all():  # named by id in the verdicts example
        response.external_id = f"study-{response.pk}"
        response.save()
    _, key = ApiToken.issue(make_user(Role.MAINTAINER), "docs")
    monkeypatch.setenv("L2ANNOT_URL", live_server.url)
    monkeypatch.setenv("L2ANNOT_TOKEN", key)
    namespace: dict[str, object] = {}
    for number, block in enumerate(doc_examples(), start=1):
        exec(compile(block, f"{DOC} (example {number})", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "01 Planning revision 1" in printed
    assert "['a1', 'a2', 'b1']" in printed
    assert "judge run queued with 2 calls" in printed
    assert "someone saved first: Lesson planning revision 2" in printed
    assert "'1.task_key': [\"no task 'no-such-task' in framework 'test-fw'\"]" in printed
    assert "responses: {'created': 1, 'updated': 0, 'unchanged': 0}" in printed
    assert "verdicts: {'created': 9, 'updated': 0, 'unchanged': 0}" in printed
    assert "judge: judge-x units: 6" in printed
    assert "agrees with the majority on 4 of 6" in printed
    assert "accuracy: 0.667" in printed
    assert "Rate: " in printed
    assert "submitted: submitted [4, 4]" in printed
    assert "the study is open" in printed
    assert "text/csv; charset=utf-8 header:" in printed
    # The final labels through httpx: pass, pass, fail on each unit is a pass by majority.
    first = graded.items.order_by("pk").first().response.task.key
    assert f"{first} " in printed and " pass majority" in printed
