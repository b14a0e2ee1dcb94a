"""The Spanish catalogue is complete and its compiled .mo files match the .po files, so neither
CI nor a deploy needs GNU gettext (`make messages` rewrites both, docs/development.md)."""

import ast
import gettext
from pathlib import Path

import pytest
from django.conf import settings

CATALOGUES = sorted((settings.BASE_DIR / "locale").glob("*/LC_MESSAGES/*.po"))


def read_po(path: Path) -> dict[str, tuple[list[str], bool]]:
    """Each entry's key (msgctxt EOT msgid, NUL msgid_plural as in a .mo) with its translations
    and whether it is marked fuzzy; the header is left out."""
    entries: dict[str, tuple[list[str], bool]] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        fields: dict[str, str] = {}
        fuzzy = False
        current = ""
        for line in block.splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith("#") or not line.strip():
                continue
            elif line.startswith('"'):
                fields[current] += ast.literal_eval(line)
            else:
                current, _, literal = line.partition(" ")
                fields[current] = ast.literal_eval(literal)
        if not fields.get("msgid"):
            continue
        key = fields["msgid"]
        if "msgctxt" in fields:
            key = fields["msgctxt"] + "\x04" + key
        if "msgid_plural" in fields:
            key += "\x00" + fields["msgid_plural"]
        strings = [value for name, value in sorted(fields.items()) if name.startswith("msgstr")]
        entries[key] = (strings, fuzzy)
    return entries


def test_there_is_a_spanish_catalogue_for_the_code_and_for_the_javascript():
    assert [path.relative_to(settings.BASE_DIR).as_posix() for path in CATALOGUES] == [
        "locale/es/LC_MESSAGES/django.po",
        "locale/es/LC_MESSAGES/djangojs.po",
    ]


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda path: path.name)
def test_every_entry_is_translated_and_none_is_fuzzy(po):
    entries = read_po(po)
    assert len(entries) > 3
    untranslated = [key for key, (strings, _) in entries.items() if not all(strings)]
    fuzzy = [key for key, (_, is_fuzzy) in entries.items() if is_fuzzy]
    assert untranslated == [], f"{po.name}: untranslated entries (run `make messages`, translate)"
    assert fuzzy == [], f"{po.name}: fuzzy entries (check the translation, drop the flag)"


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda path: path.name)
def test_the_compiled_catalogue_matches_its_source(po):
    with po.with_suffix(".mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)._catalog
    plurals = _plural_keys(po)
    from_mo: dict[str, list[str]] = {}
    for key, value in catalog.items():
        if key == "":
            continue
        if isinstance(key, tuple):  # a plural: (msgid, index) for every form
            msgid = key[0]
            plural = next(k for k in plurals if k.startswith(msgid + "\x00") or k == msgid)
            from_mo.setdefault(plural, []).append(value)
        else:
            from_mo[key] = [value]
    from_po = {key: strings for key, (strings, _) in read_po(po).items()}
    assert from_mo == from_po, f"{po.with_suffix('.mo').name} is stale: run `make messages`"


def _plural_keys(po: Path) -> list[str]:
    return [key for key in read_po(po) if "\x00" in key]


@pytest.mark.django_db
def test_a_form_shows_model_field_labels_and_help_texts_in_the_interface_language():
    from django.utils import translation

    from taxonomy.forms import ContextVariableForm

    with translation.override("es"):
        html = ContextVariableForm().as_div()
    assert "Solo números enteros" in html and "Identificador estable, p. ej. cefr_level." in html


def test_every_project_model_and_app_is_named_in_the_interface_language():
    """The admin's headings and lists name apps and models by their verbose names."""
    from django.apps import apps
    from django.utils import translation
    from django.utils.functional import Promise

    from tests.project.test_model_messages import MODEL_APPS

    untranslated = []
    with translation.override("es"):
        for app in MODEL_APPS:
            config = apps.get_app_config(app)
            names = [config.verbose_name]
            for model in config.get_models():
                names += [model._meta.verbose_name, model._meta.verbose_name_plural]
            for name in names:
                with translation.override("en"):
                    english = str(name)
                if not isinstance(name, Promise) or str(name) == english:
                    untranslated.append(english)
    assert untranslated == []


@pytest.mark.django_db
def test_the_admin_index_reads_in_spanish(admin_client):
    html = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Estudios de calificación" in html and "Asignaciones" in html
    assert "Grading studies" not in html and ">Assignments<" not in html


@pytest.mark.django_db
def test_the_admin_names_fields_in_spanish(admin_client):
    """Column headers, filters and the labels of a read-only page come from the fields'
    verbose names; the form of an editable one too."""
    from tests.factories import universal_criterion

    version = universal_criterion().versions.get()

    def page(url: str) -> str:
        return admin_client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()

    listed = page("/admin/rubrics/criterionversion/")
    assert "Tipo de puntuación" in listed and "Creado el" in listed
    assert 'data-filter-title="congelada"' in listed
    assert "Scoring type" not in listed and "Created at" not in listed

    shown = page(f"/admin/rubrics/criterionversion/{version.pk}/change/")
    assert "Qué cumple:" in shown and "Mínimo de la escala:" in shown
    assert "What passes" not in shown and "Scale min" not in shown

    edited = page(f"/admin/rubrics/criterion/{version.criterion_id}/change/")
    assert "Capa:" in edited and "Layer:" not in edited

    from django.contrib import admin
    from django.contrib.admin.utils import label_for_field
    from django.utils import translation

    from rubrics.models import TaskContextValue

    with translation.override("es"):
        model_admin = admin.site.get_model_admin(TaskContextValue)
        assert str(label_for_field("shown_value", TaskContextValue, model_admin)) == "valor"
