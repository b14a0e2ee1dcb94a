"""One demo account per role, each with a password anyone can read: for `make run` only."""

from dataclasses import dataclass

from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    role: Role


DEMO_ACCOUNTS = [
    DemoAccount("admin", "admin-demo-pass", Role.ADMIN),
    DemoAccount("maintainer", "maintainer-demo-pass", Role.MAINTAINER),
    DemoAccount("author", "author-demo-pass", Role.AUTHOR),
    DemoAccount("annotator", "annotator-demo-pass", Role.ANNOTATOR),
    DemoAccount("annotator2", "annotator2-demo-pass", Role.ANNOTATOR),
    DemoAccount("annotator3", "annotator3-demo-pass", Role.ANNOTATOR),
    DemoAccount("viewer", "viewer-demo-pass", Role.VIEWER),
]


def create_demo_accounts() -> list[DemoAccount]:
    sync_roles()
    for account in DEMO_ACCOUNTS:
        create_user_with_role(account.username, account.password, account.role)
    return DEMO_ACCOUNTS
