"""Model providers behind the one ChatModel interface (`polygon_core.providers`).

- names: `offline`, `openai:<model>`, `anthropic:<model>`, either followed by `@<base URL>`;
- the registry (`_registry.py`): one module per provider in this package, its adapter class
  registered with `@provider(name)` and declaring its key's and base URL's variables; the modules
  are imported on the first lookup (plus any `polygon.providers` entry point), its SDK only when
  one of its models is made;
- OpenAI Chat Completions (also any OpenAI-compatible server) and Anthropic Messages adapters, their
  SDKs imported lazily; tool calls normalised; structured output by OpenAI `json_schema`, Anthropic
  forced tool use, or a tolerant JSON parse; a reply that does not fit is marked unparseable;
- per-role budgets (`_roles.py`): every request gets its role's output cap, and each attempt its
  role's timeout (a deadline on the whole reply) and attempts; OpenAI-compatible replies are streamed
  and read only up to the cap (`_stream.py`), so a server that ignores `max_tokens` is cut there;
- one retry layer (`_retry.py`; the SDKs' own retries are off), per-model limits, record/replay cache,
  a usage meter and the price table (`prices.yaml`, with each provider's batch discount); failures
  are one line naming what to change (a timeout names the role's variable, a 401 the key's);
- batch APIs (OpenAI Files + Batch, Anthropic Message Batches) on `ProviderChatModel`: submit, poll,
  read results by custom id (`_batch.py` holds the shared result types).
"""

from ._batch import BatchOutcome, BatchState, BatchStatus, NoBatchApi
from ._cache import CacheMode, ReplayMiss, ResponseCache, cache_key
from ._clients import aclose_all, shared_loop_clients
from ._errors import ProviderConfigError
from ._factory import ProviderChatModel, cache_folder, make_chat_model
from ._limits import Limiter, ModelLimits, limiter_for
from ._meter import UsageMeter, ledger_key, run_usage
from ._names import ModelNameError, ModelSpec, parse_model_name
from ._offline import OFFLINE_REPLY, OfflineChatModel, schema_default
from ._prices import ModelPrice, PriceTable, estimate_cost, price_table
from ._registry import PROVIDERS, adapter_class, provider, provider_names
from ._retry import Retryable, RetryPolicy, call_with_retries
from ._roles import RoleBudget, role_budgets
from ._structured import read_structured

__all__ = [
    "OFFLINE_REPLY",
    "PROVIDERS",
    "BatchOutcome",
    "BatchState",
    "BatchStatus",
    "CacheMode",
    "Limiter",
    "ModelLimits",
    "ModelNameError",
    "ModelPrice",
    "ModelSpec",
    "NoBatchApi",
    "OfflineChatModel",
    "PriceTable",
    "ProviderChatModel",
    "ProviderConfigError",
    "ReplayMiss",
    "ResponseCache",
    "RetryPolicy",
    "Retryable",
    "RoleBudget",
    "UsageMeter",
    "aclose_all",
    "adapter_class",
    "cache_folder",
    "cache_key",
    "call_with_retries",
    "estimate_cost",
    "ledger_key",
    "limiter_for",
    "make_chat_model",
    "parse_model_name",
    "price_table",
    "provider",
    "provider_names",
    "read_structured",
    "role_budgets",
    "run_usage",
    "schema_default",
    "shared_loop_clients",
]
