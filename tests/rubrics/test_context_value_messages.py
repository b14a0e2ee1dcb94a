"""A context value that does not fit its variable gets the same message wherever it is typed:
the task page, the services (and so the API) and an L2-Bench import."""

import dataclasses
import html

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.roles import Role
from interchange.importers import import_l2bench
from rubrics import services
from taxonomy.models import ContextVariable
from tests.conftest import htmx
from tests.factories import benchmark_folder, generated

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("key", "raw"), [("cefr_level", "Z9"), ("class_size", "500")])
def test_a_bad_value_has_one_message_in_form_service_and_import(
    key, raw, task, starter_framework, author, client_as, tmp_path
):
    variable = ContextVariable.objects.get(framework=starter_framework, key=key)
    with pytest.raises(ValidationError) as parsed:
        variable.parse_value(raw)
    (message,) = parsed.value.messages

    with pytest.raises(ValidationError) as refused:
        services.set_context_value(task, variable, raw, author)
    assert refused.value.messages == [message]

    page = htmx(client_as(Role.AUTHOR)).post(
        reverse("rubrics:task_context", args=[task.pk]), {f"context-{key}": raw}
    )
    assert page.status_code == 422
    assert html.escape(message) in page.content.decode()

    records = [dataclasses.replace(generated(1)[0], context=((key, raw),))]
    report = import_l2bench(benchmark_folder(tmp_path, records), starter_framework)
    assert any(line.endswith(message) for line in report.problem_lines())
