"""Model API conversations: Anthropic and OpenAI request/response bodies, exchanges,
message lists and streams; and the OpenAI-style message-list walk other formats share."""

from ._anthropic import ANTHROPIC
from ._message_list import ChatList
from ._openai import OPENAI

__all__ = ["ANTHROPIC", "OPENAI", "ChatList"]
