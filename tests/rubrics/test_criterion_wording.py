"""A criterion's wording never holds '|': the L2-Bench pipeline cuts criteria at every one."""

import pytest
from django.core.exceptions import ValidationError

from rubrics import services
from rubrics.models import CriterionVersion

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("wording", ["Uses A | B notation.", "Either a|b.", "|", "Ends with |"])
def test_adding_a_criterion_whose_wording_holds_a_bar_is_refused(sub_competency, author, wording):
    with pytest.raises(ValidationError) as refused:
        services.add_criterion(sub_competency, wording, 2, author)
    assert "cannot contain '|'" in refused.value.message_dict["wording"][0]
    assert not CriterionVersion.objects.filter(wording=wording).exists()


def test_a_universal_criterion_is_held_to_the_same_rule(starter_framework, author):
    with pytest.raises(ValidationError):
        services.add_criterion(starter_framework, "Fits age | level.", 2, author, "09u1")


def test_editing_the_wording_to_hold_a_bar_is_refused(task, author):
    criterion = task.criteria.get(code="t101-01")
    with pytest.raises(ValidationError):
        services.edit_criterion(criterion, {"wording": "A|B"}, criterion.revision, author)
    assert "|" not in services.latest_version(criterion).wording
