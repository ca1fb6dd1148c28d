"""Parse a Chat Completions SSE fixture with the official `mistralai` SDK's stream types
(each `data:` line as a CompletionEvent's CompletionChunk, as Chat.stream yields them) and
accumulate what an application would: content (a string, or typed chunks: `text` chunks
into content, Magistral's `thinking` chunks into thinking), tool calls by index (arguments
concatenated), the finish reason and usage. Each chunk is also checked for keys the SDK
drops (unknown keys).

Usage: python3 sdk_stream.py FIXTURE   -> prints one JSON object
"""
from __future__ import annotations

import json
import os
import sys

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import dropped  # noqa: E402

from mistralai.client.models import CompletionChunk


def main() -> int:
    text = open(sys.argv[1], encoding="utf-8").read()
    datas = [l[len("data:"):].strip() for l in text.splitlines() if l.startswith("data:")]
    content, thinking, calls, problems = "", "", {}, []
    finish, usage, model, rid, done = None, None, None, None, False
    for i, data in enumerate(datas):
        if data == "[DONE]":
            done = True
            break
        raw = json.loads(data)
        chunk = CompletionChunk.model_validate(raw)
        lost = dropped(raw, chunk.model_dump(by_alias=True, mode="json"))
        if lost:
            problems.append(f"chunk {i}: unknown keys {lost}")
        model, rid = chunk.model, chunk.id
        if chunk.usage is not None:
            usage = {"prompt_tokens": chunk.usage.prompt_tokens, "completion_tokens": chunk.usage.completion_tokens}
        for choice in chunk.choices:
            d = choice.delta
            if isinstance(d.content, str):
                content += d.content
            elif isinstance(d.content, list):
                for c in d.content:
                    if c.type == "thinking":
                        thinking += "".join(t.text for t in c.thinking if getattr(t, "type", None) == "text")
                    elif c.type == "text":
                        content += c.text
            for tc in d.tool_calls or []:
                idx = tc.index if isinstance(tc.index, int) else len(calls)
                slot = calls.setdefault(idx, {"id": None, "name": "", "arguments": ""})
                if isinstance(tc.id, str) and tc.id != "null":
                    slot["id"] = tc.id
                slot["name"] += tc.function.name or ""
                args = tc.function.arguments
                slot["arguments"] += args if isinstance(args, str) else json.dumps(args)
            if choice.finish_reason is not None:
                finish = str(choice.finish_reason)
    out = {"problems": problems, "done": done, "message": {
        "id": rid, "model": model, "content": content, "thinking": thinking, "finish_reason": finish, "usage": usage,
        "tool_calls": [{"id": c["id"], "name": c["name"], "arguments": json.loads(c["arguments"] or "{}")}
                       for _, c in sorted(calls.items())]}}
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
