"""Prompt templates: shipped on a fresh install, versioned on every change of text."""

import importlib

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from accounts.roles import Role
from core.prompting import template_problems
from judging.models import PromptTemplate, PromptVersion
from judging.services import create_template, default_prompt, find_prompt, save_version

pytestmark = pytest.mark.django_db

TEXT = "Task: {{task}}\nResponse: {{response}}\nCriterion: {{criterion}}\nAnswer true or false."


def test_a_fresh_install_has_the_two_shipped_prompts_ready_to_run():
    shipped = {v.template.name: v for v in PromptVersion.objects.select_related("template")}
    assert set(shipped) == {"reference-guided", "critique-then-verdict"}
    assert shipped["reference-guided"].style == "binary"
    assert shipped["critique-then-verdict"].style == "critique"
    assert "{{reference_answer}}" in shipped["reference-guided"].text
    assert all(template_problems(v.text) == [] for v in shipped.values())
    assert default_prompt() == shipped["reference-guided"]


def test_a_new_database_gets_the_shipped_prompts_from_the_initial_migration():
    PromptTemplate.objects.all().delete()
    migration = importlib.import_module("judging.migrations.0001_initial")
    state = MigrationLoader(connection).project_state(("judging", "0001_initial"))
    migration.ship_prompts(state.apps, None)
    assert {(v.template.name, v.number) for v in PromptVersion.objects.all()} == {
        ("reference-guided", 1),
        ("critique-then-verdict", 1),
    }


def test_saving_a_changed_text_makes_the_next_version_and_keeps_the_old(make_user):
    author = make_user(Role.MAINTAINER)
    first = create_template("short", TEXT, by=author)
    second = save_version(first.template, TEXT + "\nBe strict.", style="binary", by=author)
    assert (first.number, second.number) == (1, 2)
    first.refresh_from_db()
    assert first.text == TEXT
    assert second.created_by == author


def test_saving_the_same_text_again_is_the_same_version():
    first = create_template("short", TEXT, by=None)
    assert save_version(first.template, TEXT, style="binary", by=None) == first
    assert save_version(first.template, TEXT, style="critique", by=None).number == 2


def test_a_text_with_an_unknown_slot_is_refused_and_saves_nothing():
    with pytest.raises(ValidationError, match="refrence"):
        create_template("typo", TEXT + "{{refrence}}", by=None)
    assert not PromptTemplate.objects.filter(name="typo").exists()


def test_a_prompt_is_found_by_name_for_its_latest_version_or_by_name_at_number():
    first = create_template("short", TEXT, by=None)
    second = save_version(first.template, TEXT + " ", style="binary", by=None)
    assert find_prompt("short") == second
    assert find_prompt("short@1") == first
    with pytest.raises(ValidationError, match="No prompt version 'short@9'"):
        find_prompt("short@9")
