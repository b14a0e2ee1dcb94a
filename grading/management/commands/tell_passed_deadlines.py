from typing import Any

from django.utils.translation import gettext_noop, ngettext

from grading.deadlines import schedule_open_deadlines, tell_passed_deadlines
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Tell the webhooks of every study closed by its deadline and not told yet, and schedule "
        "the worker's task at each deadline still ahead. Where no worker runs, run it from cron."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        told = tell_passed_deadlines()
        scheduled = schedule_open_deadlines()
        self.stdout.write(
            ngettext(
                "%(count)d study closed by its deadline told.",
                "%(count)d studies closed by their deadline told.",
                told,
            )
            % {"count": told}
        )
        self.stdout.write(
            ngettext(
                "%(count)d deadline ahead scheduled.",
                "%(count)d deadlines ahead scheduled.",
                scheduled,
            )
            % {"count": scheduled}
        )
