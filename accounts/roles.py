"""The one table that says which role may do what.

Views, the API and the tests all read ROLE_ACTIONS; roles are Django groups whose permissions are
kept in step with this table by `sync_roles()` after every migrate.
"""

from enum import StrEnum

from django.utils.functional import Promise as StrPromise
from django.utils.translation import gettext_noop, pgettext_lazy


class Role(StrEnum):
    ADMIN = "Admin"
    MAINTAINER = "Maintainer"
    AUTHOR = "Author"
    ANNOTATOR = "Annotator"
    VIEWER = "Viewer"


class Action(StrEnum):
    """Things a person can be allowed to do. The value is the permission codename."""

    VIEW_TAXONOMY = "view_taxonomy"
    EDIT_TAXONOMY = "edit_taxonomy"
    VIEW_BENCHMARK = "view_benchmark"
    EDIT_RUBRICS = "edit_rubrics"
    REVIEW_RUBRICS = "review_rubrics"
    IMPORT_DATA = "import_data"
    EXPORT_DATA = "export_data"
    MANAGE_STUDIES = "manage_studies"
    GRADE = "grade"
    VIEW_HISTORY = "view_history"
    MANAGE_PEOPLE = "manage_people"
    MANAGE_WEBHOOKS = "manage_webhooks"


# Also the names of the Django permissions (in migrations), so marked only: translated where shown.
ACTION_LABELS: dict[Action, str] = {
    Action.VIEW_TAXONOMY: gettext_noop("View the taxonomy and context variables"),
    Action.EDIT_TAXONOMY: gettext_noop("Edit the taxonomy and context variables"),
    Action.VIEW_BENCHMARK: gettext_noop("View tasks, criteria and model responses"),
    Action.EDIT_RUBRICS: gettext_noop("Write tasks and criteria"),
    Action.REVIEW_RUBRICS: gettext_noop("Approve or return tasks submitted for review"),
    Action.IMPORT_DATA: gettext_noop("Import benchmarks, responses and judge verdicts"),
    Action.EXPORT_DATA: gettext_noop("Export rubrics, grades and reports"),
    Action.MANAGE_STUDIES: gettext_noop("Run grading studies and adjudicate"),
    Action.GRADE: gettext_noop("Grade assigned responses"),
    Action.VIEW_HISTORY: gettext_noop("See who changed what"),
    Action.MANAGE_PEOPLE: gettext_noop(
        "Invite people, set their role and expertise, deactivate them"
    ),
    Action.MANAGE_WEBHOOKS: gettext_noop("Register webhooks and send their deliveries again"),
}

ROLE_LABELS: dict[Role, "StrPromise"] = {
    Role.ADMIN: pgettext_lazy("role", "Admin"),
    Role.MAINTAINER: pgettext_lazy("role", "Maintainer"),
    Role.AUTHOR: pgettext_lazy("role", "Author"),
    Role.ANNOTATOR: pgettext_lazy("role", "Annotator"),
    Role.VIEWER: pgettext_lazy("role", "Viewer"),
}


def role_label(role: Role | None) -> "StrPromise | None":
    """A role's name in the reader's language; None for no role."""
    return ROLE_LABELS[role] if role else None


_READ = {Action.VIEW_TAXONOMY, Action.VIEW_BENCHMARK, Action.VIEW_HISTORY}

# Annotators see the taxonomy (they grade against it) but not the benchmark's responses, criteria
# or history: browsing those would reveal model identities and other graders' work.
ROLE_ACTIONS: dict[Role, frozenset[Action]] = {
    Role.ADMIN: frozenset(Action),
    Role.MAINTAINER: frozenset(
        _READ
        | {
            Action.EDIT_TAXONOMY,
            Action.EDIT_RUBRICS,
            Action.REVIEW_RUBRICS,
            Action.IMPORT_DATA,
            Action.EXPORT_DATA,
            Action.MANAGE_STUDIES,
        }
    ),
    Role.AUTHOR: frozenset(_READ | {Action.EDIT_TAXONOMY, Action.EDIT_RUBRICS}),
    Role.ANNOTATOR: frozenset({Action.VIEW_TAXONOMY, Action.GRADE}),
    Role.VIEWER: frozenset(_READ),
}


def roles_allowed(action: Action) -> frozenset[Role]:
    return frozenset(role for role, actions in ROLE_ACTIONS.items() if action in actions)
