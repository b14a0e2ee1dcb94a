"""Plain builders shared by test modules."""

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from demo.benchmark import seed_demo_benchmark
from taxonomy.models import Framework
from tests.taxonomy.factories import load_starter_framework


def demo_benchmark_and_graders(graders: int) -> tuple[Framework, list[User]]:
    """The starter framework holding the demo benchmark (universal criteria, published demo
    tasks and their responses), and `graders` annotators (grader0, grader1, ...) to grade it."""
    framework = load_starter_framework()
    sync_roles()
    seed_demo_benchmark(
        framework,
        create_user_with_role("author", "pw-author", Role.AUTHOR),
        create_user_with_role("maintainer", "pw-maintainer", Role.MAINTAINER),
    )
    annotators = [
        create_user_with_role(f"grader{n}", f"pw-grader{n}", Role.ANNOTATOR) for n in range(graders)
    ]
    return framework, annotators
