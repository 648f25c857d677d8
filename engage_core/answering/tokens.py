"""Token counts when a model does not give them (the offline one): an estimate.

A token is about four characters of English text (OpenAI's rule of thumb), so a text of n characters
counts `ceil(n / 4)` tokens, and each message of a prompt adds `MESSAGE_OVERHEAD` for its role and
separators, as OpenAI's chat format does. Arabic and other scripts take more tokens per character
with real tokenizers; the estimate is meant for `usage` and quotas, not for billing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from engage_core.answering.chat import Usage

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` is (0 for an empty text)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_usage(prompt: Iterable[str], completion: str) -> Usage:
    """The estimated usage of a prompt of these messages' texts and of its completion."""
    prompt_tokens = sum(estimate_tokens(text) + MESSAGE_OVERHEAD for text in prompt)
    return Usage(prompt_tokens, estimate_tokens(completion))
