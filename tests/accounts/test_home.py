import pytest
from django.urls import reverse

from accounts.roles import Role

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("role", "shown", "hidden"),
    [
        (Role.ANNOTATOR, ["Your grading"], ["Tasks and rubrics", "Agreement", "Review queue"]),
        (Role.AUTHOR, ["Tasks and rubrics", "Agreement"], ["Your grading", "Review queue"]),
        (
            Role.MAINTAINER,
            ["Review queue", "Grading studies", "Import and export"],
            ["Your grading"],
        ),
    ],
)
def test_the_start_page_offers_what_the_role_may_do(client_as, role, shown, hidden):
    body = client_as(role).get(reverse("home")).content.decode()
    main = body[body.index("<main") :]
    assert all(text in main for text in shown)
    assert not any(text in main for text in hidden)
