"""Validate request bodies produced by dive-google against the official `google-genai` types.

google-genai's pydantic models forbid unknown keys (extra='forbid') and take camelCase
aliases, so each piece of a `generateContent` body is validated from its JSON text in strict
mode (base64 `bytes` fields such as `inlineData.data` and `thoughtSignature` are decoded, so
bad base64 fails too):
  contents[i]        -> types.Content
  systemInstruction  -> types.Content
  tools[i]           -> types.Tool
  toolConfig         -> types.ToolConfig
  generationConfig   -> types.GenerationConfig
  safetySettings[i]  -> types.SafetySetting
and the top level may hold only the fields of the REST request.

Usage: python3 validate_requests.py DIR
  Every DIR/*.json is validated. Before that, a self-check proves the validator rejects an
  unknown key, a wrong type and bad base64. Exit 0 when every file is valid.
"""
from __future__ import annotations

import json
import os
import sys

from google.genai import types as t
from pydantic import ValidationError

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import errors, run_dir  # noqa: E402

TOP = {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "cachedContent", "labels"}
ONE = {"systemInstruction": t.Content, "toolConfig": t.ToolConfig, "generationConfig": t.GenerationConfig}
MANY = {"contents": t.Content, "tools": t.Tool, "safetySettings": t.SafetySetting}


def validate(body: dict) -> str | None:
    problems = [f"unknown top-level key {k!r}" for k in body if k not in TOP]
    if "contents" not in body:
        problems.append("no contents")
    try:
        for key, model in ONE.items():
            if key in body:
                model.model_validate_json(json.dumps(body[key]), strict=True)
        for key, model in MANY.items():
            for i, item in enumerate(body.get(key, [])):
                try:
                    model.model_validate_json(json.dumps(item), strict=True)
                except ValidationError as e:
                    raise ValueError(f"{key}[{i}]: " + errors(e, 4))
    except ValidationError as e:
        problems.append(errors(e, 4))
    except ValueError as e:
        problems.append(str(e))
    return "; ".join(problems) or None


def self_check() -> bool:
    good = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"maxOutputTokens": 8}}
    ok = validate(good) is None
    ok &= validate({**good, "generation_config": {}}) is not None
    ok &= validate({**good, "contents": [{"role": "user", "parts": [{"txt": "hi"}]}]}) is not None
    ok &= validate({**good, "generationConfig": {"maxOutputTokens": "8"}}) is not None
    ok &= validate({**good, "contents": [{"role": "model", "parts": [{"text": "x", "thoughtSignature": "%%"}]}]}) is not None
    return bool(ok)


if __name__ == "__main__":
    sys.exit(run_dir(lambda _name, body: validate(body), self_check))
