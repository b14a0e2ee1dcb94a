from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop

from core.refusals import Conflict
from grading.commands import STUDY_HELP, study_argument
from interchange.problem_text import problem_text
from interchange.progress import TextProgressBar
from judging.models import JudgeConfig
from judging.runs import MAX_CONNECTIONS, start_run
from judging.services import find_prompt
from l2annot.commands import Command as TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_noop(
        "Run the LLM judge on a study's responses, one call per (response, criterion, epoch), "
        "and store its verdicts. The model is an Inspect AI model string; its API key comes "
        "from the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, <SERVICE>_API_KEY ...). "
        "--config NAME runs a saved judge configuration."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("study", help=STUDY_HELP)
        parser.add_argument(
            "--config",
            default="",
            help=gettext_noop(
                "A saved judge configuration, by name; with --model, the name to save these "
                "options under (refused when the name holds other values)."
            ),
        )
        parser.add_argument("--model", help=gettext_noop("e.g. anthropic/claude-sonnet-4-6"))
        parser.add_argument(
            "--prompt",
            help=gettext_noop("NAME or NAME@VERSION (default: reference-guided, latest version)."),
        )
        parser.add_argument("--epochs", type=int, default=1)
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--max-connections", type=int, default=MAX_CONNECTIONS)
        parser.add_argument(
            "--parse-retries",
            type=int,
            default=3,
            help=gettext_noop("Retries of an unreadable answer."),
        )
        parser.add_argument("--retry-temperature", type=float, default=0.2)
        parser.add_argument(
            "--ask-probability",
            action="store_true",
            help=gettext_noop(
                "Ask the judge for its probability that the response meets each binary criterion."
            ),
        )
        parser.add_argument("--limit", type=int, help=gettext_noop("Judge only the first N units."))
        parser.add_argument(
            "--model-family", default="", help=gettext_noop("The judge's vendor or family.")
        )
        parser.add_argument(
            "--confirm-cost",
            action="store_true",
            help=gettext_noop(
                "Run even when the run's estimated cost is above its budget (JUDGE_RUN_BUDGET)."
            ),
        )
        parser.add_argument(
            "--batch",
            action="store_true",
            help=gettext_noop(
                "Send the calls through the provider's batch API (about half the price; the "
                "answers can take hours)."
            ),
        )
        parser.add_argument(
            "--queue",
            action="store_true",
            help=gettext_noop("Leave the run to the worker instead."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_argument(options["study"])
        if not options["model"] and not options["config"]:
            raise CommandError(
                gettext("Give --model MODEL, or --config NAME of a saved configuration.")
            )
        try:
            config = None
            if not options["model"]:
                config = JudgeConfig.objects.filter(name=options["config"]).first()
                if config is None:
                    known = ", ".join(JudgeConfig.objects.values_list("name", flat=True))
                    if known:
                        refusal = gettext(
                            "No judge configuration '%(name)s' (configurations: %(known)s)."
                        )
                    else:
                        refusal = gettext(
                            "No judge configuration '%(name)s' (there are no configurations)."
                        )
                    raise CommandError(refusal % {"name": options["config"], "known": known})
            prompt = find_prompt(options["prompt"]) if options["prompt"] else None
            run = start_run(
                study,
                config=config,
                name=options["config"],
                model=options["model"] or "",
                prompt=prompt,
                model_family=options["model_family"],
                temperature=options["temperature"],
                epochs=options["epochs"],
                max_connections=options["max_connections"],
                parse_retries=options["parse_retries"],
                retry_temperature=options["retry_temperature"],
                ask_probability=options["ask_probability"],
                limit=options["limit"],
                confirm_cost=options["confirm_cost"],
                batch=options["batch"],
                by=None,
                enqueue=options["queue"],
            )
        except (ValidationError, Conflict) as error:
            raise CommandError("; ".join(getattr(error, "messages", [str(error)]))) from None
        assert run.config is not None
        self.stdout.write(
            gettext("Judge run %(id)s: %(calls)s calls with %(prompt)s (configuration '%(name)s')")
            % {
                "id": run.pk,
                "calls": run.calls_total,
                "prompt": run.prompt_version,
                "name": run.config.name,
            }
        )
        if options["queue"]:
            return
        from judging.running import execute_run  # loads Inspect AI (seconds)

        bar = TextProgressBar(self.stderr)
        judging = gettext("judging")
        run = execute_run(run.pk, on_progress=lambda done, total: bar(done, total, judging))
        bar.close()
        for problem in run.problems:
            self.stderr.write(problem_text(problem))
        self.stdout.write(
            gettext(
                "%(status)s: %(verdicts)s verdicts (%(unparseable)s unparseable), %(errors)s "
                "errors, %(tokens)s tokens, %(seconds)s s. Log: %(log)s"
            )
            % {
                "status": run.get_status_display(),
                "verdicts": run.verdicts.per_response().count(),
                "unparseable": run.unparseable,
                "errors": run.errors,
                "tokens": run.total_tokens,
                "seconds": number_format(run.duration or 0, decimal_pos=1),
                "log": run.log_path,
            }
        )
        if run.status != run.Status.SUCCEEDED:
            raise CommandError(
                gettext("The run ended %(status)s.") % {"status": run.get_status_display().lower()}
            )
