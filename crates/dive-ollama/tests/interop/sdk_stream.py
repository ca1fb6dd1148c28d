"""Parse an /api/chat NDJSON stream fixture the way the official `ollama` SDK's Client.chat
(stream=True) does: json.loads per line, an 'error' key raises, every other line becomes a
ChatResponse. Accumulate what an application would (content, thinking, tool calls, the final
done line) and check each line for keys the SDK drops (unknown keys).

Usage: python3 sdk_stream.py FIXTURE   -> prints one JSON object
"""
from __future__ import annotations

import json
import os
import sys

# The machinery every provider's interop scripts share lives in dive-test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
from sdk_checks import dropped  # noqa: E402

from ollama import ChatResponse, ResponseError


def main() -> int:
    content, thinking, calls, problems = "", "", [], []
    final = None
    error = None
    with open(sys.argv[1], encoding="utf-8") as f:
        for i, line in enumerate(l for l in f.read().splitlines() if l.strip()):
            part = json.loads(line)
            try:
                if err := part.get("error"):
                    raise ResponseError(err)
                r = ChatResponse(**part)
            except ResponseError as e:
                error = e.error
                break
            extra = dropped(part, r.model_dump(mode="json", by_alias=True))
            if extra:
                problems.append(f"line {i}: unknown keys {extra}")
            content += r.message.content or ""
            thinking += r.message.thinking or ""
            for c in r.message.tool_calls or []:
                calls.append({"name": c.function.name, "arguments": dict(c.function.arguments)})
            if r.done:
                final = r
    out = {
        "problems": problems,
        "error": error,
        "message": None if final is None else {
            "model": final.model,
            "content": content,
            "thinking": thinking,
            "tool_calls": calls,
            "done_reason": final.done_reason,
            "prompt_eval_count": final.prompt_eval_count,
            "eval_count": final.eval_count,
        },
    }
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
