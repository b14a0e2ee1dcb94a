"""Two edits of proficiency-level mappings at the same moment, each closing half of a circle
(A corresponds to B, B to A), cannot both be saved: the framework's row is locked while a
mapping is checked (ProficiencyLevel.clean), so the second edit sees the first and is refused,
as a single edit would be. Threads with a connection each, on SQLite and PostgreSQL."""

import pytest
from django.core.exceptions import ValidationError

from audit import editing
from taxonomy.models import ProficiencyLevel, ProficiencyScale
from tests.concurrency import run_together, threads_share_one_database
from tests.factories import make_framework

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_edits_closing_a_circle_at_once_save_one_and_refuse_the_other():
    framework = make_framework()
    school = ProficiencyScale.objects.create(framework=framework, code="school", name="School")
    exam = ProficiencyScale.objects.create(framework=framework, code="exam", name="Exam")
    first = ProficiencyLevel.objects.create(scale=school, code="one", label="One")
    pass_ = ProficiencyLevel.objects.create(scale=exam, code="pass", label="Pass")

    def map_level(level: ProficiencyLevel, to: ProficiencyLevel) -> None:
        editing.update(level, {"corresponds_to": to}, level.revision, None)

    with threads_share_one_database():
        raised = run_together(lambda: map_level(first, pass_), lambda: map_level(pass_, first))

    refused = [error for error in raised if error is not None]
    assert len(refused) == 1, raised
    assert isinstance(refused[0], ValidationError) and "circle" in str(refused[0])
    mapped = dict(
        ProficiencyLevel.objects.filter(pk__in=[first.pk, pass_.pk]).values_list(
            "pk", "corresponds_to"
        )
    )
    assert list(mapped.values()).count(None) == 1  # one mapping saved, no circle
