"""Validate every event of a canned SSE stream against the official anthropic SDK's event types.

Copied from the shared testbed (validate_stream.py), reduced to the anthropic kind; used by
crates/dive-anthropic/tests/interop.rs.

The SDK clients are lenient when they *consume* a stream (a misspelled field is often
silently dropped: openai gives 'Hello' instead of 'Hello world'; anthropic crashed with
a TypeError), so this checks each event on its own:
  * required fields / wrong types   -> pydantic ValidationError
  * unknown (e.g. misspelled) keys  -> reported from model_extra (openai/anthropic models
    use extra='allow'), from extra='forbid' (google-genai), or from a dump/diff
    (mistralai/ollama models drop unknown keys).

Usage: venv/bin/python validate_stream.py KIND FILE
  KIND: anthropic | openai-chat | openai-responses | gemini | mistral | ollama
Exit 0 when every event is valid and has no unknown keys.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Iterator

from pydantic import BaseModel, TypeAdapter, ValidationError


def sse_events(text: str) -> Iterator[tuple[str | None, str]]:
    """Minimal SSE framing (WHATWG): yields (event, data) per blank-line-terminated block."""
    event, data = None, []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
    if data:
        yield event, "\n".join(data)


def _by_type(union: Any) -> dict[str, TypeAdapter]:
    """Map data.type -> member model, so errors name one class instead of the whole union
    (openai's ResponseStreamEvent discriminator is SDK-specific, pydantic sees a plain union)."""
    import typing

    members = typing.get_args(union)
    if members and typing.get_origin(union) is typing.Annotated:
        members = typing.get_args(members[0])
    out = {}
    for m in members:
        f = getattr(m, "model_fields", {}).get("type")
        for lit in typing.get_args(f.annotation) if f else ():
            out[lit] = TypeAdapter(m)
    return out


def adapter_for(kind: str) -> TypeAdapter:
    if kind == "anthropic":
        from anthropic.types import RawMessageStreamEvent
        return TypeAdapter(RawMessageStreamEvent)
    if kind == "openai-chat":
        from openai.types.chat import ChatCompletionChunk
        return TypeAdapter(ChatCompletionChunk)
    if kind == "openai-responses":
        from openai.types.responses import ResponseStreamEvent
        return TypeAdapter(ResponseStreamEvent)
    if kind == "gemini":
        from google.genai.types import GenerateContentResponse
        return TypeAdapter(GenerateContentResponse)
    if kind == "mistral":
        from mistralai.client.models import CompletionChunk
        return TypeAdapter(CompletionChunk)
    if kind == "ollama":
        from ollama import ChatResponse
        return TypeAdapter(ChatResponse)
    raise SystemExit(f"unknown kind {kind}")


def extras(m: Any, path: str = "") -> list[str]:
    """Unknown keys kept in model_extra anywhere in a validated model tree."""
    out: list[str] = []
    if isinstance(m, BaseModel):
        for k in (m.model_extra or {}):
            out.append(f"{path}.{k}".lstrip("."))
        for name in type(m).model_fields:
            out += extras(getattr(m, name, None), f"{path}.{name}")
    elif isinstance(m, (list, tuple)):
        for i, v in enumerate(m):
            out += extras(v, f"{path}[{i}]")
    elif isinstance(m, dict):
        for k, v in m.items():
            out += extras(v, f"{path}.{k}")
    return out


def dropped(raw: Any, dumped: Any, path: str = "") -> list[str]:
    """Keys present in the input but absent after validate+dump(by_alias) (extra='ignore' models)."""
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


def validate(kind: str, text: str) -> list[str]:
    ta = adapter_for(kind)
    by_type = _by_type(ta._type) if kind in ("anthropic", "openai-responses") else {}
    problems: list[str] = []
    if kind == "ollama":
        items = [(None, line) for line in text.splitlines() if line.strip()]
    else:
        items = list(sse_events(text))
    n = 0
    for i, (event, data) in enumerate(items):
        if data == "[DONE]":
            continue
        obj = json.loads(data)
        if kind == "anthropic" and obj.get("type") in ("ping", "error"):
            continue  # not part of RawMessageStreamEvent; the SDK handles them separately
        if event and isinstance(obj, dict) and obj.get("type") and event != obj["type"]:
            problems.append(f"#{i}: SSE event name {event!r} != data.type {obj['type']!r}")
        n += 1
        one = by_type.get(obj.get("type")) if isinstance(obj, dict) else None
        if by_type and one is None:
            problems.append(f"#{i}: unknown event type {obj.get('type')!r}")
            continue
        try:
            m = (one or ta).validate_python(obj)
        except ValidationError as e:
            problems.append(f"#{i} ({event or obj.get('type', '')}): " + "; ".join(
                f"{'.'.join(map(str, err['loc']))}: {err['type']}" for err in e.errors()[:4]))
            continue
        unknown = extras(m)
        if kind in ("mistral", "ollama"):
            unknown += dropped(obj, ta.dump_python(m, by_alias=True, mode="json"))
        if unknown:
            problems.append(f"#{i} ({event or obj.get('type', '')}): unknown keys {unknown}")
    if n == 0:
        problems.append("no events found")
    return problems


def main() -> int:
    kind, path = sys.argv[1], sys.argv[2]
    problems = validate(kind, open(path, encoding="utf-8").read())
    for p in problems:
        print("  " + p)
    print(f"{path}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
