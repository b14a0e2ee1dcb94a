import pytest
from django.core.exceptions import ValidationError

from rubrics import services
from rubrics.services import TurnSpec

pytestmark = pytest.mark.django_db


def test_importing_the_same_response_id_again_updates_it_in_place(task):
    first, created = services.record_response(task, "m", text="Old.", external_id="run1/t101")
    again, created_again = services.record_response(task, "m", text="New.", external_id="run1/t101")
    assert (created, created_again, again.pk) == (True, False, first.pk)
    assert task.responses.get().text == "New."


def test_a_conversation_keeps_its_turns_in_order(task):
    turns = [TurnSpec("system", "Be kind."), TurnSpec("user", "Hi"), TurnSpec("assistant", "Hello")]
    response, _ = services.record_response(task, "m", turns=turns, external_id="c1")
    assert list(response.turns.values_list("index", "role")) == [
        (0, "system"),
        (1, "user"),
        (2, "assistant"),
    ]


def test_a_response_needs_either_text_or_turns(task):
    with pytest.raises(ValidationError, match="either a text or turns"):
        services.record_response(task, "m")
    with pytest.raises(ValidationError, match="either a text or turns"):
        services.record_response(task, "m", text="x", turns=[TurnSpec("user", "y")])


def test_an_unknown_turn_role_is_refused(task):
    with pytest.raises(ValidationError, match="not a turn role"):
        services.record_response(task, "m", turns=[TurnSpec("narrator", "Once")])
