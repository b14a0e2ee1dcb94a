from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User
from demo.accounts import create_demo_accounts
from demo.benchmark import seed_demo_benchmark
from demo.judge_runs import seed_demo_judge_runs
from demo.study import seed_demo_judge, seed_demo_study
from taxonomy import services as taxonomy
from taxonomy.seedfile import read_context_variables, read_scales, read_taxonomy


class Command(BaseCommand):
    help = "Load the starter framework and demo data, and create one demo user per role."

    def handle(self, *args: Any, **options: Any) -> None:
        fixtures = settings.BASE_DIR / "fixtures"
        framework, report = taxonomy.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
        self.stdout.write(f"Taxonomy {framework.code}: {report.summary()}")
        report = taxonomy.load_scales(framework, read_scales(fixtures / "proficiency_scales.json"))
        self.stdout.write(f"Proficiency scales: {report.summary()}")
        report = taxonomy.load_context_variables(
            framework, read_context_variables(fixtures / "context_variables.json")
        )
        self.stdout.write(f"Context variables: {report.summary()}")
        accounts = create_demo_accounts()
        self.stdout.write("\nDemo accounts (user name / password / role):")
        for account in accounts:
            self.stdout.write(f"  {account.username:<12} {account.password:<22} {account.role}")
        users = User.objects.in_bulk(["author", "maintainer"], field_name="username")
        benchmark = seed_demo_benchmark(framework, users["author"], users["maintainer"])
        self.stdout.write(f"\nDemo benchmark: {benchmark.summary()}")
        study = seed_demo_study()
        self.stdout.write(f"Demo grading study: {study or 'no responses to grade'}")
        judge = seed_demo_judge()
        if judge is not None:
            self.stdout.write(f"Demo judge configuration: {judge} ({judge.model}, {judge.prompt})")
        if study is not None:
            for run in seed_demo_judge_runs(study):
                self.stdout.write(
                    f"Demo judge run: {run} ({run.verdicts.per_response().count()} verdicts)"
                )
