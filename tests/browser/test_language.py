"""A person switches the interface to Spanish on their profile, and the grading page follows:
its texts, its keyboard hints and the messages its JavaScript writes."""

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.roles import Role
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def spanish(text: str) -> str:
    with translation.override("es"):
        return translation.gettext(text)


def test_an_annotator_switches_to_spanish_and_grades_in_spanish(new_page, log_in):
    page = new_page(width=1280)
    annotator = log_in(page, Role.ANNOTATOR)
    factories.study([annotator], responses=1, overlap=1)

    page.goto(reverse("profile"))
    page.get_by_label("Interface language").select_option("es")
    page.get_by_role("button", name="Save language").click()
    page.get_by_text("Idioma de la interfaz guardado.").wait_for()
    assert page.locator("html").get_attribute("lang") == "es"
    assert page.get_by_role("navigation", name="Principal").get_by_text("Calificación").count()

    page.goto(reverse("grading:index"))
    page.get_by_role("button", name=spanish("Start grading")).click()
    page.wait_for_url("**/grading/assignments/*/")
    assert page.get_by_role("heading", name="Califique esta respuesta").count() == 1
    assert page.locator("#answered-count").inner_text().endswith("respondidos")

    # Each button shows its key (the keys stay the same in every language).
    first = page.locator("[data-step]").first
    assert first.get_by_role("button", name="Cumple", exact=True).inner_text() == "Cumple p"

    # The keyboard help, and a message written by grading.js from the JavaScript catalogue.
    page.keyboard.press("?")
    help_dialog = page.get_by_role("dialog", name="Atajos de teclado")
    help_dialog.get_by_text("Esta ayuda").wait_for()
    help_dialog.get_by_role("button", name="Cerrar").click()
    page.evaluate(
        """text => { for (const key of text) document.activeElement.dispatchEvent(
            new KeyboardEvent("keydown", {key, bubbles: true, cancelable: true})); }""",
        "hola que tal",
    )
    note = page.locator(".typing-note")
    note.wait_for()
    assert note.inner_text().startswith("Está escribiendo fuera de un cuadro de texto")
    assert page.csp_errors == []
