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
A replayed call of a provider-defined toolset member (a `tool_use` block with a
`toolset_name`) is also judged as the SDK's own member block (`BetaComputerToolUseBlock`,
discriminated by name, each member's input typed), and noted as such.
Exit 0 when every file is valid.
"""
from __future__ import annotations

import os
import sys

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import StrictTypedDicts, errors, kind_of, run_dir  # noqa: E402

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

from pydantic import TypeAdapter, ValidationError  # noqa: E402
from anthropic.types.beta.beta_computer_tool_use_block import BetaComputerToolUseBlock  # noqa: E402

# The member blocks of each toolset family, by the `toolset_name` its calls carry.
MEMBER_BLOCKS = {"computer": TypeAdapter(BetaComputerToolUseBlock)}


def member_calls(body: dict) -> tuple[list[str], list[str]]:
    """Every replayed toolset member call of `body`, judged as the SDK's member block."""
    problems: list[str] = []
    notes: list[str] = []
    for m, message in enumerate(body.get("messages", [])):
        content = message.get("content")
        for b, block in enumerate(content if isinstance(content, list) else []):
            family = block.get("toolset_name") if block.get("type") == "tool_use" else None
            if family is None:
                continue
            adapter = MEMBER_BLOCKS.get(family)
            where = f"messages[{m}].content[{b}]"
            if adapter is None:
                problems.append(f"{where}: no SDK member block for toolset {family!r}")
                continue
            call = {k: v for k, v in block.items() if k != "cache_control"}
            try:
                adapter.validate_python(call, strict=True)
                notes.append(f"member call {block.get('name')} valid as the SDK's {family} member block")
            except ValidationError as e:
                problems.append(f"{where}: {errors(e)}")
    return problems, notes


def validate(kind: str, body: dict) -> str | None:
    return REQUESTS.validate(kind, body)


def validate_file(kind: str, body: dict) -> tuple[list[str], list[str]]:
    problem = validate(kind, body)
    problems, notes = member_calls(body)
    return ([problem] if problem else []) + problems, notes


def self_check() -> bool:
    good = {"model": "claude-sonnet-5-5", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    ok = validate("anthropic", good) is None
    ok &= validate("anthropic", {**good, "max_token": 5}) is not None
    ok &= validate("anthropic", {**good, "max_tokens": "16"}) is not None
    bad_block = {**good, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "foo": 1}]}]}
    ok &= validate("anthropic", bad_block) is not None
    click = {"type": "tool_use", "id": "t", "name": "left_click", "toolset_name": "computer",
             "input": {"coordinate": [1, 2]}}
    bad_click = {**click, "input": {"coordinate": "1,2"}}
    unknown = {**click, "name": "teleport"}
    for block, valid in ((click, True), (bad_click, False), (unknown, False)):
        body = {**good, "messages": [{"role": "assistant", "content": [block]}]}
        ok &= (not member_calls(body)[0]) == valid
    return ok


if __name__ == "__main__":
    sys.exit(run_dir(lambda name, body: validate_file(kind_of(name), body), self_check))
