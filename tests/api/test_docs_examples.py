"""The Python examples in docs/api.md (fenced blocks starting with `# doc-test`) run, in order,
against a live server, as an Author with a token: the documentation cannot drift from the API."""

import re

import pytest
from django.conf import settings

from accounts.models import ApiToken
from accounts.roles import Role
from tests.taxonomy.factories import make_framework

DOC = settings.BASE_DIR / "docs" / "api.md"


def doc_examples() -> list[str]:
    blocks = re.findall(r"```python\n(# doc-test\n.*?)```", DOC.read_text(), flags=re.S)
    return blocks


def test_the_doc_has_examples():
    assert len(doc_examples()) >= 4


@pytest.mark.django_db(transaction=True)
def test_the_python_examples_in_the_api_doc_run(live_server, make_user, monkeypatch, capsys):
    make_framework()
    _, key = ApiToken.issue(make_user(Role.AUTHOR), "docs")
    monkeypatch.setenv("L2ANNOT_URL", live_server.url)
    monkeypatch.setenv("L2ANNOT_TOKEN", key)
    namespace: dict[str, object] = {}
    for block in doc_examples():
        exec(compile(block, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "01 Planning revision 1" in printed
    assert "['a1', 'a2', 'b1']" in printed
    assert "someone saved first: Lesson planning revision 2" in printed
