"""Every model of the project has an admin page that opens."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from accounts.roles import Role
from l2annot.read_only_admin import ReadOnly

PROJECT_APPS = {"accounts", "audit", "taxonomy", "rubrics", "grading", "judging", "agreement",
                "interchange", "webhooks", "jobs"}  # fmt: skip


def project_models():
    return [
        model
        for model in apps.get_models()
        if model._meta.app_label in PROJECT_APPS and model._meta.managed
    ]


def test_every_project_model_is_registered_in_the_admin():
    missing = [m._meta.label for m in project_models() if m not in admin.site._registry]
    assert missing == []


@pytest.mark.django_db
@pytest.mark.parametrize("model", project_models(), ids=lambda m: m._meta.label)
def test_the_admin_list_of_each_model_opens(model, client_as, starter_framework):
    meta = model._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
    assert client_as(Role.ADMIN).get(url).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["admin:rubrics_task_changelist", "admin:taxonomy_subcompetency_changelist"]
)
def test_the_admin_names_the_sub_competency_as_everywhere_else_in_the_readers_language(
    url, client_as, starter_framework
):
    client = client_as(Role.ADMIN)
    english = client.get(reverse(url), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Sub-competenc" in english and "Sub competenc" not in english
    spanish = client.get(reverse(url), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Subcompetencia" in spanish and "Sub-competenc" not in spanish


@pytest.mark.django_db
def test_rows_the_services_write_cannot_be_added_in_the_admin(client_as):
    client = client_as(Role.ADMIN)
    read_only = [model._meta for model, page in admin.site._registry.items()
                 if isinstance(page, ReadOnly)]  # fmt: skip
    assert "jobs.Job" in {meta.label for meta in read_only}
    answers = {
        meta.label: client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add")).status_code
        for meta in read_only
    }
    assert set(answers.values()) == {403}, answers
