"""Validate /api/chat request bodies produced by dive-ollama against the official `ollama`
Python SDK (0.6.3), with unknown keys REJECTED.

The SDK's ChatRequest types `messages` as Union[Mapping[str, Any], Message] and `options` as
Union[Mapping[str, Any], Options], so validating the body as a whole accepts anything there.
This script therefore checks each part against the model the SDK itself uses for it:
  * top-level keys must be ChatRequest fields;
  * each message goes through the SDK's own `_copy_messages` (Message.model_validate) in
    strict mode, each tool through `_copy_tools` (Tool.model_validate), `options` through
    Options in strict mode; a key the model drops on dump is an unknown key (the SDK models
    use extra='ignore', so this is the only way to see one);
  * finally the body the SDK's `Client.chat()` would send for the same arguments
    (ChatRequest(...).model_dump(exclude_none=True)) must EQUAL ours.
One tolerance, stated: inside `tools[].function.parameters` the SDK models only a subset of
JSON Schema (type/items/description/enum per property) and drops other keywords, as the
Ollama server's Go types also ignore them; extra schema keywords there are reported as notes,
not failures, and left out of the equality check.

Usage: python3 validate_requests.py DIR   (every DIR/*.json is one body)
Before that, a self-check proves the validator rejects unknown keys and wrong types.
Exit 0 when every body is valid.
"""
from __future__ import annotations

import copy
import json
import os
import sys

from pydantic import ValidationError

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import dropped, errors, run_dir  # noqa: E402

from ollama import Message, Options, Tool
from ollama._client import _copy_messages, _copy_tools
from ollama._types import ChatRequest


def strip_parameters(tools: list) -> list:
    out = copy.deepcopy(tools)
    for t in out:
        t.get("function", {}).pop("parameters", None)
    return out


def validate(body: dict) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    notes: list[str] = []
    unknown = sorted(set(body) - set(ChatRequest.model_fields))
    if unknown:
        problems.append(f"unknown top-level keys {unknown}")
    try:
        messages = []
        for i, m in enumerate(body.get("messages") or []):
            strict = Message.model_validate({k: v for k, v in m.items() if k != "images"}, strict=True)
            problems += [f"messages[{i}].{k}: unknown key" for k in dropped(
                {k: v for k, v in m.items() if k != "images"}, strict.model_dump(exclude_none=True, by_alias=True))]
            messages.append(m)
        sdk_messages = list(_copy_messages(messages))
        tools = body.get("tools") or []
        sdk_tools = list(_copy_tools(tools))
        for i, (raw, t) in enumerate(zip(tools, sdk_tools)):
            for k in dropped(raw, t.model_dump(exclude_none=True, by_alias=True)):
                (notes if k.startswith("function.parameters") else problems).append(f"tools[{i}].{k}: dropped by the SDK")
        options = body.get("options")
        if options is not None:
            o = Options.model_validate(options, strict=True)
            problems += [f"options.{k}: unknown key" for k in dropped(options, o.model_dump(exclude_none=True))]
        think = body.get("think")
        if think is not None and not (isinstance(think, bool) or think in ("low", "medium", "high")):
            problems.append(f"think: {think!r} is not a bool or a level")
        sdk_body = ChatRequest(
            model=body.get("model", ""),
            messages=sdk_messages,
            tools=sdk_tools,
            stream=body.get("stream", False),
            think=think,
            format=body.get("format"),
            options=options,
            keep_alive=body.get("keep_alive"),
            logprobs=body.get("logprobs"),
            top_logprobs=body.get("top_logprobs"),
        ).model_dump(exclude_none=True)
        ours = dict(body)
        if "tools" in sdk_body or "tools" in ours:
            sdk_body["tools"] = strip_parameters(sdk_body.get("tools") or [])
            ours["tools"] = strip_parameters(ours.get("tools") or [])
            if not sdk_body["tools"]:
                sdk_body.pop("tools")
            if not ours["tools"]:
                ours.pop("tools")
        if sdk_body != ours:
            problems.append(f"the SDK would send a different body: {json.dumps(sdk_body, sort_keys=True)}")
    except ValidationError as e:
        problems.append(errors(e))
    except ValueError as e:
        problems.append(str(e))
    return problems, notes


def self_check() -> bool:
    good = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False}
    ok = not validate(good)[0]
    ok &= bool(validate({**good, "max_tokens": 5})[0])
    ok &= bool(validate({**good, "messages": [{"role": "user", "content": "hi", "name": "x"}]})[0])
    ok &= bool(validate({**good, "messages": [{"role": "user", "content": 5}]})[0])
    ok &= bool(validate({**good, "options": {"num_ctx": 8, "max_tokens": 5}})[0])
    ok &= bool(validate({**good, "options": {"num_ctx": "8"}})[0])
    ok &= bool(validate({**good, "tools": [{"type": "function", "function": {"name": "f", "strict": True}}]})[0])
    return ok


if __name__ == "__main__":
    sys.exit(run_dir(lambda _name, body: validate(body), self_check))
