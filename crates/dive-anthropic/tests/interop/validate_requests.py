"""Validate request bodies produced by dive-anthropic against the official `anthropic` SDK
TypedDicts, with unknown keys REJECTED (extra='forbid') and strict types.

The technique is dive-test's `sdk_checks.StrictTypedDicts` (the TypedDict wrapped in List[...]
so the config reaches nested TypedDicts, lazily validated iterables consumed).
Its refinement: the SDK's message content union also admits *response* models (TextBlock …,
which allow extra keys), and pydantic's smart union may pick them even for a valid block.
Such an item is re-validated against its request twin (TextBlock -> TextBlockParam) with the
same forbid/strict config, so unknown keys are still rejected and valid blocks still pass.

Usage: python3 validate_requests.py DIR
  Every DIR/*.json is validated; its kind is the second-to-last dot part of its name:
  NAME.anthropic.json, NAME.anthropic-stream.json, NAME.anthropic-beta.json,
  NAME.anthropic-beta-stream.json.
Before that, a self-check proves the validator rejects an unknown key and a wrong type.
Exit 0 when every file is valid.
"""
from __future__ import annotations

import os
import sys

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import StrictTypedDicts, kind_of, run_dir  # noqa: E402

from anthropic.types.message_create_params import (
    MessageCreateParamsNonStreaming,
    MessageCreateParamsStreaming,
)
from anthropic.types.beta.message_create_params import (
    MessageCreateParamsNonStreaming as BetaNonStreaming,
    MessageCreateParamsStreaming as BetaStreaming,
)

KINDS = {
    "anthropic": MessageCreateParamsNonStreaming,
    "anthropic-stream": MessageCreateParamsStreaming,
    "anthropic-beta": BetaNonStreaming,
    "anthropic-beta-stream": BetaStreaming,
}
REQUESTS = StrictTypedDicts(KINDS)


def validate(kind: str, body: dict) -> str | None:
    return REQUESTS.validate(kind, body)


def self_check() -> bool:
    good = {"model": "claude-sonnet-5-5", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    ok = validate("anthropic", good) is None
    ok &= validate("anthropic", {**good, "max_token": 5}) is not None
    ok &= validate("anthropic", {**good, "max_tokens": "16"}) is not None
    bad_block = {**good, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "foo": 1}]}]}
    ok &= validate("anthropic", bad_block) is not None
    return ok


if __name__ == "__main__":
    sys.exit(run_dir(lambda name, body: validate(kind_of(name), body), self_check))
