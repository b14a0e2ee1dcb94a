"""A refusal of the models, validators or services caught by an import (which runs in English)
is kept as its English template and values (interchange.refusals), and read in the language of
whoever opens the import's page."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy

from core.formats.problems import Problem
from core.messages import Text
from interchange.problem_text import message_text, problem_text
from interchange.refusals import refusal_texts
from taxonomy.models import ContextVariable


def caught(check) -> list[str]:
    """What `check` refused, caught as an import job catches it: in English."""
    with translation.override("en"):
        try:
            check()
        except ValidationError as error:
            return refusal_texts(error)
    raise AssertionError("nothing was refused")


def read(message: str, language: str) -> str:
    with translation.override(language):
        return message_text(message)


def test_a_refusal_with_its_values_apart_is_read_in_the_readers_language():
    variable = ContextVariable(label="Class size", key="class_size", kind="number")
    (message,) = caught(lambda: variable.parse_value("many"))
    assert message == "Class size (class_size) takes a number, not 'many'."
    assert read(message, "es") == "Class size (class_size) admite un número, no 'many'."
    assert read(message, "en") == message


def test_a_validators_plural_message_is_read_in_the_readers_language_and_number():
    (message,) = caught(lambda: MaxLengthValidator(3)("abcdef"))
    assert message == "Ensure this value has at most 3 characters (it has 6)."
    assert (
        read(message, "es") == "Asegúrese de que este valor tenga menos de 3 caracteres (tiene 6)."
    )
    (one,) = caught(lambda: MaxLengthValidator(1)("ab"))
    assert one == "Ensure this value has at most 1 character (it has 2)."


def test_the_refused_value_itself_is_not_kept_when_the_message_does_not_show_it():
    (message,) = caught(lambda: MaxLengthValidator(3)("x" * 10_000))
    assert set(message.as_json()["values"]) == {"limit_value", "show_value"}


def test_a_lazy_value_such_as_a_verdicts_label_is_read_in_the_readers_language():
    def refuse():
        raise ValidationError(
            gettext("This grade is submitted: write the rationale before choosing %(answer)s."),
            params={"answer": gettext_lazy("Fail")},
        )

    (message,) = caught(refuse)
    assert message == "This grade is submitted: write the rationale before choosing Fail."
    assert read(message, "es") == (
        "Esta calificación está enviada: escriba la justificación antes de elegir Incumple."
    )


def test_a_refusal_written_out_is_kept_as_it_reads():
    def refuse():
        raise ValidationError("Someone wrote 100% of this out: %(not a placeholder)s")

    (message,) = caught(refuse)
    assert read(message, "es") == "Someone wrote 100% of this out: %(not a placeholder)s"


def test_every_message_of_a_refusal_is_kept():
    def refuse():
        raise ValidationError(
            {"a": ["Choose Pass, Fail or N/A."], "b": ["Choose a value from 1 to 5."]}
        )

    assert [read(m, "es") for m in caught(refuse)] == [
        "Elija Cumple, Incumple o N/A.",
        "Elija un valor de 1 a 5.",
    ]


def test_a_stored_problem_holding_a_refusal_is_read_in_the_readers_language():
    variable = ContextVariable(label="Class size", key="class_size", kind="number")
    (message,) = caught(lambda: variable.parse_value("many"))
    stored = Problem("tasks.csv", 4, "class_size", message, unit="row").as_json()
    with translation.override("es"):
        assert problem_text(stored) == (
            "tasks.csv: fila 4: campo 'class_size': Class size (class_size) admite un número, "
            "no 'many'."
        )


def test_a_list_value_is_read_as_its_items_each_in_the_readers_language():
    message = Text(
        "Refused: %(reasons)s",
        reasons=[Text("Choose Pass, Fail or N/A."), Text("Choose a value from 1 to 5.")],
    )
    assert message == "Refused: Choose Pass, Fail or N/A., Choose a value from 1 to 5."
    with translation.override("es"):
        assert message_text(message) == (
            "Refused: Elija Cumple, Incumple o N/A., Elija un valor de 1 a 5."
        )
