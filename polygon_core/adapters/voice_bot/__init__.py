"""A deployed voice bot on the line (issue 30): one real-time call over a transport, the bot's tools
served from the engine's stubs. `BotCall` is both the engine's `Agent` (the bot's turns, heard by
Polygon's recogniser, and its tool calls) and its `Line` (the caller's lines streamed in real time).
"""

from ._call import BOT_TURN_END_MS, SILENT_LIMIT_S, BotCall, BotFailure

__all__ = ["BOT_TURN_END_MS", "SILENT_LIMIT_S", "BotCall", "BotFailure"]
