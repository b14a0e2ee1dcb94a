"""A prompt version a run used is frozen: no page, admin or model save changes it; a change is
the prompt's next version."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from judging.models import JudgeRun, PromptFrozen, PromptTemplate, PromptVersion
from judging.services import create_template

pytestmark = pytest.mark.django_db

TEXT = "Response: {{response}}\nCriterion: {{criterion}}\nAnswer true or false."


@pytest.fixture
def used():
    version = create_template("house", TEXT, by=None)
    JudgeRun.objects.create(
        judge_model="openai/gpt-4.1", prompt_version=str(version), prompt=version
    )
    return version


def test_a_used_version_refuses_a_change_of_its_text_or_what_describes_it(used):
    for field, value in [("text", TEXT + " Be strict."), ("style", "critique"), ("note", "x")]:
        changed = PromptVersion.objects.get(pk=used.pk)
        setattr(changed, field, value)
        with pytest.raises(PromptFrozen):
            changed.save()
    assert PromptVersion.objects.get(pk=used.pk).text == TEXT


def test_an_unused_version_may_have_its_note_corrected():
    version = create_template("house", TEXT, by=None)
    version.note = "Typo fixed."
    version.save()
    assert PromptVersion.objects.get(pk=version.pk).note == "Typo fixed."


def test_a_used_prompt_keeps_its_name(used):
    template = PromptTemplate.objects.get(pk=used.template_id)
    template.name = "renamed"
    with pytest.raises(PromptFrozen):
        template.save()
    template.name, template.description = "house", "Described later."
    template.save()  # what only describes the prompt may change


def test_the_admin_shows_a_used_version_and_refuses_a_change(used, client_as):
    admin = client_as(Role.ADMIN)
    url = reverse("admin:judging_promptversion_change", args=[used.pk])
    page = admin.get(url)
    assert page.status_code == 200 and b'name="note"' not in page.content
    refused = admin.post(url, {"style": "critique", "note": "changed"})
    assert refused.status_code == 403
    assert PromptVersion.objects.get(pk=used.pk).style == "binary"
    delete = admin.post(
        reverse("admin:judging_promptversion_delete", args=[used.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403 and PromptVersion.objects.filter(pk=used.pk).exists()


def test_the_admin_adds_no_version_and_keeps_a_used_prompts_name(used, client_as):
    admin = client_as(Role.ADMIN)
    assert admin.get(reverse("admin:judging_promptversion_add")).status_code == 403
    page = admin.get(reverse("admin:judging_prompttemplate_change", args=[used.template_id]))
    assert b'name="name"' not in page.content and b'name="description"' in page.content


def test_the_admin_edits_the_note_of_an_unused_version(client_as):
    version = create_template("draft", TEXT, by=None)
    url = reverse("admin:judging_promptversion_change", args=[version.pk])
    answer = client_as(Role.ADMIN).post(url, {"style": "binary", "note": "Better note."})
    assert answer.status_code == 302
    assert PromptVersion.objects.get(pk=version.pk).note == "Better note."


def test_saving_a_used_version_on_the_page_makes_the_next_version(used, client_as):
    url = reverse("judging:prompt", args=[used.template_id])
    client_as(Role.MAINTAINER).post(url, {"text": TEXT + " Be strict.", "style": "binary"})
    assert [(v.number, v.text) for v in used.template.versions.order_by("number")] == [
        (1, TEXT),
        (2, TEXT + " Be strict."),
    ]
    page = client_as(Role.MAINTAINER).get(url).content.decode()
    assert "used by 1 run, frozen" in page
