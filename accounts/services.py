from django.contrib.auth.models import Group, Permission
from django.db import transaction

from accounts.models import User
from accounts.roles import ROLE_ACTIONS, Role


@transaction.atomic
def sync_roles() -> None:
    """Create one group per role and give it exactly the permissions of ROLE_ACTIONS."""
    perms = {p.codename: p for p in Permission.objects.filter(content_type__app_label="accounts")}
    for role, actions in ROLE_ACTIONS.items():
        group, _ = Group.objects.get_or_create(name=role.value)
        group.permissions.set([perms[action.value] for action in actions if action.value in perms])


def role_of(user: User) -> Role | None:
    names = {g.name for g in user.groups.all()}
    return next((role for role in Role if role.value in names), None)


@transaction.atomic
def create_user_with_role(username: str, password: str, role: Role, **extra: object) -> User:
    user, _ = User.objects.get_or_create(username=username, defaults=extra)
    user.set_password(password)
    user.is_staff = role is Role.ADMIN
    user.is_superuser = role is Role.ADMIN
    user.save()
    user.groups.set([Group.objects.get(name=role.value)])
    return user
