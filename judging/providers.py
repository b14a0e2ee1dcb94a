"""Which Inspect AI providers a judge may call. A model string names its provider first
(`anthropic/claude-sonnet-4-6`, `openai-api/local/llama3.1`), and some providers reach more than
a remote API: `ollama/...` and `llama-cpp-python/...` call a port on the worker's own machine,
`hf/...` and `vllm/...` load a model into the worker. So the deployment names the providers it
allows (settings.JUDGE_ALLOWED_PROVIDERS) and every way of starting a run checks them here."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext


def allowed_providers() -> list[str]:
    return [entry.strip().strip("/") for entry in settings.JUDGE_ALLOWED_PROVIDERS if entry]


def is_allowed(model: str) -> bool:
    """An entry allows the models under it: `openai-api` every OpenAI-compatible service,
    `openai-api/local` only that one."""
    return any(model.startswith(f"{entry}/") for entry in allowed_providers())


def check_model(model: str) -> None:
    """Refuse a model string that is not `provider/model` or whose provider is not allowed."""
    if "/" not in model.strip("/") or model != model.strip():
        raise ValidationError(
            {
                "model": gettext("'%(model)s' is not an Inspect model (provider/model).")
                % {"model": model}
            }
        )
    if not is_allowed(model):
        raise ValidationError(
            {
                "model": gettext(
                    "'%(model)s' calls a provider this server does not allow; the allowed "
                    "providers are: %(allowed)s (JUDGE_ALLOWED_PROVIDERS)."
                )
                % {"model": model, "allowed": ", ".join(allowed_providers()) or "-"}
            }
        )


# The providers whose batch API Inspect calls (its `batch` option); the others, an
# OpenAI-compatible server (`openai-api/...`) among them, would make every call one by one.
BATCH_PROVIDERS = ("openai", "anthropic", "google", "together", "grok")


def check_batch(model: str) -> None:
    """Refuse a batch run of a model whose provider has no batch API that Inspect calls."""
    if model.split("/", 1)[0] not in BATCH_PROVIDERS:
        raise ValidationError(
            {
                "batch": gettext(
                    "'%(model)s' cannot be sent through a batch API: Inspect has one for the "
                    "providers %(providers)s only."
                )
                % {"model": model, "providers": ", ".join(BATCH_PROVIDERS)}
            }
        )
