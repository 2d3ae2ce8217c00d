"""The chat interface shared by every role; implementations live in `polygon_core.adapters.providers`."""

from ._types import (
    COMPACT_PREFIX,
    ChatMessage,
    ChatModel,
    ChatRequest,
    ChatResponse,
    ChatTool,
    ChatToolCall,
)

__all__ = ["COMPACT_PREFIX", "ChatMessage", "ChatModel", "ChatRequest", "ChatResponse", "ChatTool", "ChatToolCall"]
