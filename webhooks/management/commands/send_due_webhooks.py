from typing import Any

from django.utils.translation import gettext_noop, ngettext

from l2annot.commands import Command as TranslatedCommand
from webhooks.jobs import send_due_retries


class Command(TranslatedCommand):
    help = gettext_noop(
        "Try again every webhook delivery whose next attempt is due. Where no worker runs, run "
        "it from cron; a worker makes those attempts at their time itself."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        sent = send_due_retries()
        self.stdout.write(
            ngettext(
                "%(count)d webhook delivery tried again.",
                "%(count)d webhook deliveries tried again.",
                sent,
            )
            % {"count": sent}
        )
