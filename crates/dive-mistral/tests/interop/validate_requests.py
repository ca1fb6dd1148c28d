"""Validate Chat Completions bodies produced by dive-mistral against the official `mistralai`
SDK (3.7.0) request models, with unknown keys REJECTED.

The SDK models (ChatCompletionRequest / ChatCompletionStreamRequest) ignore unknown keys
(pydantic extra='ignore'), so an unknown key is found the way the shared testbed finds one
in mistral stream events: validate, dump by alias, and report every input key the dump
lost. Types are checked by pydantic (wrong types and missing required fields raise).
A message that matched no member of the SDK's role-discriminated message union fails.

Usage: python3 validate_requests.py DIR   (every DIR/*.json is one body; `stream: true`
selects ChatCompletionStreamRequest)
Before that, a self-check proves the validator rejects unknown keys and wrong types.
Exit 0 when every body is valid.
"""
from __future__ import annotations

import os
import sys

from pydantic import ValidationError

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import dropped, errors, run_dir  # noqa: E402

from mistralai.client.models import ChatCompletionRequest, ChatCompletionStreamRequest


def validate(body: dict) -> str | None:
    model = ChatCompletionStreamRequest if body.get("stream") else ChatCompletionRequest
    try:
        m = model.model_validate(body)
    except ValidationError as e:
        return errors(e)
    # The response_format schema is an arbitrary JSON schema (aliased `schema`); tool
    # `parameters` likewise: their inner keys are data, not SDK fields.
    lost = [k for k in dropped(body, m.model_dump(by_alias=True, mode="json"))]
    if lost:
        return f"unknown keys {lost}"
    return None


def self_check() -> bool:
    good = {"model": "mistral-small-latest", "messages": [{"role": "user", "content": "hi"}]}
    ok = validate(good) is None
    ok &= validate({**good, "max_completion_tokens": 5}) is not None
    ok &= validate({**good, "stream_options": {"include_usage": True}}) is not None
    ok &= validate({**good, "messages": [{"role": "assistant", "content": "x", "refusal": "no"}]}) is not None
    ok &= validate({**good, "max_tokens": "many"}) is not None
    return ok


if __name__ == "__main__":
    sys.exit(run_dir(lambda _name, body: validate(body), self_check))
