"""`{{ user|person }}`: a person as maintainers' pages name them (accounts.names)."""

from django import template

from accounts.names import person_name

register = template.Library()


@register.filter
def person(user: object) -> str:
    if user is None or not hasattr(user, "username"):
        return ""
    return person_name(getattr(user, "display_name", ""), user.username)
