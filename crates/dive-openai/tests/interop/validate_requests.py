"""Validate request bodies produced by dive-openai against the official `openai` SDK
TypedDicts, with unknown keys REJECTED (extra='forbid') and strict types.

Adapted from the shared testbed's validate_requests.py (same technique: wrap the TypedDict in
List[...] so the config reaches nested TypedDicts, consume lazily validated iterables).
One refinement: where an SDK union also admits a *response* model (which allows extra keys)
and pydantic's smart union picks it, the item is re-validated against its request twin
(Foo -> FooParam) with the same forbid/strict config, so unknown keys are still rejected.

Usage: python3 validate_requests.py DIR
  Every DIR/*.json is validated; its kind is the second-to-last dot part of its name:
  NAME.openai-responses.json, NAME.openai-responses-stream.json, NAME.openai-chat.json,
  NAME.openai-chat-stream.json.
Before that, a self-check proves the validator rejects an unknown key and a wrong type.
Exit 0 when every file is valid.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any, List

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)

KINDS = {
    "openai-chat": CompletionCreateParamsNonStreaming,
    "openai-chat-stream": CompletionCreateParamsStreaming,
    "openai-responses": ResponseCreateParamsNonStreaming,
    "openai-responses-stream": ResponseCreateParamsStreaming,
}
_cache: dict[str, TypeAdapter] = {}


def adapter(kind: str) -> TypeAdapter:
    if kind not in _cache:
        _cache[kind] = TypeAdapter(List[KINDS[kind]], config=ConfigDict(extra="forbid", strict=True))
    return _cache[kind]


def _consume(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _consume(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_consume(v) for v in x]
    if isinstance(x, (str, bytes, int, float, bool)) or x is None:
        return x
    if isinstance(x, BaseModel):
        param = _param_twin(type(x))
        if param is None:
            raise ValueError(f"item only matched response model {type(x).__name__}: {x.model_dump(exclude_none=True)}")
        raw = x.model_dump(mode="python", exclude_unset=True, by_alias=True)
        twin = TypeAdapter(List[param], config=ConfigDict(extra="forbid", strict=True))
        return _consume(twin.validate_python([raw]))[0]
    if hasattr(x, "__iter__"):
        return [_consume(v) for v in x]
    return x


def _param_twin(model: type) -> Any:
    import importlib

    module = importlib.import_module(model.__module__ + "_param")
    return getattr(module, model.__name__ + "Param", None)


def validate(kind: str, body: dict) -> str | None:
    try:
        _consume(adapter(kind).validate_python([body]))
    except ValidationError as e:
        return "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['type']}" for err in e.errors()[:6])
    except ValueError as e:
        return str(e)
    return None


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


def main() -> int:
    if not self_check():
        print("SELF-CHECK FAILED: the validator accepts unknown keys or wrong types")
        return 2
    folder = sys.argv[1]
    failures = 0
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    for name in names:
        kind = name.rsplit(".", 2)[-2]
        body = json.load(open(os.path.join(folder, name), encoding="utf-8"))
        problem = validate(kind, body)
        print(f"[{'PASS' if problem is None else 'FAIL'}] {name}{'' if problem is None else ': ' + problem}")
        failures += problem is not None
    print(f"{len(names) - failures} valid, {failures} invalid")
    return 1 if failures or not names else 0


if __name__ == "__main__":
    sys.exit(main())
