"""Polygon's HTTP service (FastAPI): signed webhooks that emit Prefect events, and the web app."""

from ._app import access_token_configured, build_server, create_app
from ._webhook_deliveries import DatabaseDeliveryStore, DeliveryStore, MemoryDeliveryStore
from ._webhook_models import PromptCommitPayload, PromptTarget, SweepPayload, WebhookConfig, changed_prompts, glob_match
from ._webhooks import PROMPT_COMMITTED, SWEEP_REQUESTED, prompt_event_spec, sign, verify_signature

__all__ = [
    "PROMPT_COMMITTED",
    "SWEEP_REQUESTED",
    "DatabaseDeliveryStore",
    "DeliveryStore",
    "MemoryDeliveryStore",
    "PromptCommitPayload",
    "PromptTarget",
    "SweepPayload",
    "WebhookConfig",
    "access_token_configured",
    "build_server",
    "changed_prompts",
    "create_app",
    "glob_match",
    "prompt_event_spec",
    "sign",
    "verify_signature",
]
