"""Validate request bodies produced by dive-openai against the official `openai` SDK
TypedDicts, with unknown keys REJECTED (extra='forbid') and strict types.

The technique is dive-test's `sdk_checks.StrictTypedDicts` (the TypedDict wrapped in List[...]
so the config reaches nested TypedDicts, lazily validated iterables consumed).
Its refinement: where an SDK union also admits a *response* model (which allows extra keys)
and pydantic's smart union picks it, the item is re-validated against its request twin
(Foo -> FooParam) with the same forbid/strict config, so unknown keys are still rejected.

Usage: python3 validate_requests.py DIR
  Every DIR/*.json is validated; its kind is the second-to-last dot part of its name:
  NAME.openai-responses.json, NAME.openai-responses-stream.json, NAME.openai-chat.json,
  NAME.openai-chat-stream.json, NAME.openai-compact.json (a `POST /responses/compact` body).
Before that, a self-check proves the validator rejects an unknown key and a wrong type.
Exit 0 when every file is valid.
"""
from __future__ import annotations

import os
import sys

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import StrictTypedDicts, kind_of, run_dir  # noqa: E402

from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)

from openai.types.responses.response_compact_params import ResponseCompactParams  # noqa: E402

KINDS = {
    "openai-compact": ResponseCompactParams,
    "openai-chat": CompletionCreateParamsNonStreaming,
    "openai-chat-stream": CompletionCreateParamsStreaming,
    "openai-responses": ResponseCreateParamsNonStreaming,
    "openai-responses-stream": ResponseCreateParamsStreaming,
}
REQUESTS = StrictTypedDicts(KINDS)


def validate(kind: str, body: dict) -> str | None:
    return REQUESTS.validate(kind, body)


def self_check() -> bool:
    chat = {"model": "gpt-5.5", "max_completion_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    ok = validate("openai-chat", chat) is None
    ok &= validate("openai-chat", {**chat, "max_token": 5}) is not None
    ok &= validate("openai-chat", {**chat, "max_completion_tokens": "16"}) is not None
    bad_part = {**chat, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "foo": 1}]}]}
    ok &= validate("openai-chat", bad_part) is not None
    resp = {"model": "gpt-5.5", "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]}
    ok &= validate("openai-responses", resp) is None
    ok &= validate("openai-responses", {**resp, "max_tokens": 5}) is not None
    bad_item = {**resp, "input": [{"type": "function_call_output", "call_id": "c", "output": "x", "is_error": True}]}
    ok &= validate("openai-responses", bad_item) is not None
    return ok


if __name__ == "__main__":
    sys.exit(run_dir(lambda name, body: validate(kind_of(name), body), self_check))
