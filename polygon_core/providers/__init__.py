"""The chat interface shared by every role; implementations live in `polygon_core.adapters.providers`."""

from ._types import (
    ChatMessage,
    ChatModel,
    ChatRequest,
    ChatResponse,
    ChatTool,
    ChatToolCall,
)

__all__ = ["ChatMessage", "ChatModel", "ChatRequest", "ChatResponse", "ChatTool", "ChatToolCall"]
