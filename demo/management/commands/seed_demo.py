from typing import Any

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

from accounts.models import User
from accounts.roles import ROLE_LABELS
from demo.accounts import create_demo_accounts
from demo.benchmark import seed_demo_benchmark
from demo.judge_runs import seed_demo_judge_runs
from demo.study import seed_demo_judge, seed_demo_study
from l2annot.commands import Command as TranslatedCommand
from taxonomy import services as taxonomy
from taxonomy.seedfile import read_context_variables, read_scales, read_taxonomy


class Command(TranslatedCommand):
    help = gettext_noop(
        "Load the starter framework and demo data, and create one demo user per role."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        fixtures = settings.BASE_DIR / "fixtures"
        framework, report = taxonomy.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
        self.stdout.write(
            gettext("Taxonomy %(code)s: %(summary)s")
            % {"code": framework.code, "summary": report.summary()}
        )
        report = taxonomy.load_scales(framework, read_scales(fixtures / "proficiency_scales.json"))
        self.stdout.write(
            gettext("Proficiency scales: %(summary)s") % {"summary": report.summary()}
        )
        report = taxonomy.load_context_variables(
            framework, read_context_variables(fixtures / "context_variables.json")
        )
        self.stdout.write(gettext("Context variables: %(summary)s") % {"summary": report.summary()})
        accounts = create_demo_accounts()
        self.stdout.write("\n" + gettext("Demo accounts (user name / password / role):"))
        for account in accounts:
            self.stdout.write(
                f"  {account.username:<12} {account.password:<22} {ROLE_LABELS[account.role]}"
            )
        users = User.objects.in_bulk(["author", "maintainer"], field_name="username")
        benchmark = seed_demo_benchmark(framework, users["author"], users["maintainer"])
        self.stdout.write(
            "\n" + gettext("Demo benchmark: %(summary)s") % {"summary": benchmark.summary()}
        )
        study = seed_demo_study()
        if study is None:
            self.stdout.write(gettext("Demo grading study: no responses to grade"))
        else:
            self.stdout.write(gettext("Demo grading study: %(study)s") % {"study": study})
        judge = seed_demo_judge()
        if judge is not None:
            self.stdout.write(
                gettext("Demo judge configuration: %(name)s (%(model)s, %(prompt)s)")
                % {"name": judge, "model": judge.model, "prompt": judge.prompt}
            )
        if study is not None:
            for run in seed_demo_judge_runs(study):
                self.stdout.write(
                    gettext("Demo judge run: %(run)s (%(count)s verdicts)")
                    % {"run": run, "count": run.verdicts.per_response().count()}
                )
