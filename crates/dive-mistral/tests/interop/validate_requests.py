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

import json
import os
import sys
from typing import Any

from pydantic import ValidationError

from mistralai.client.models import ChatCompletionRequest, ChatCompletionStreamRequest


def dropped(raw: Any, dumped: Any, path: str = "") -> list[str]:
    out: list[str] = []
    if isinstance(raw, dict) and isinstance(dumped, dict):
        for k, v in raw.items():
            if k not in dumped:
                out.append(f"{path}.{k}".lstrip("."))
            else:
                out += dropped(v, dumped[k], f"{path}.{k}")
    elif isinstance(raw, list) and isinstance(dumped, list):
        for i, (a, b) in enumerate(zip(raw, dumped)):
            out += dropped(a, b, f"{path}[{i}]")
    return out


def validate(body: dict) -> str | None:
    model = ChatCompletionStreamRequest if body.get("stream") else ChatCompletionRequest
    try:
        m = model.model_validate(body)
    except ValidationError as e:
        return "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['type']}" for err in e.errors()[:6])
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


def main() -> int:
    if not self_check():
        print("SELF-CHECK FAILED: the validator accepts unknown keys or wrong types")
        return 2
    folder = sys.argv[1]
    failures = 0
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    for name in names:
        body = json.load(open(os.path.join(folder, name), encoding="utf-8"))
        problem = validate(body)
        print(f"[{'PASS' if problem is None else 'FAIL'}] {name}{'' if problem is None else ': ' + problem}")
        failures += problem is not None
    print(f"{len(names) - failures} valid, {failures} invalid")
    return 1 if failures or not names else 0


if __name__ == "__main__":
    sys.exit(main())
