"""Feed an SSE fixture to the official `google-genai` SDK and print what it makes of it.

Usage: python3 sdk_stream.py FIXTURE
Prints one JSON object:
  {"problems": [...every SSE event validated alone as a GenerateContentResponse, strict,
                unknown keys rejected (the SDK's models forbid them)...],
   "path": the URL path the SDK called,
   "blocks": <the model turn the SDK's chat recorded, grouped as below>,
   "finish_reason": ..., "usage": <usageMetadata of the last chunk>, "recorded_valid": bool}
The fixture is served by a local stdlib HTTP server to `client.chats.create(...)
.send_message_stream(...)`, whose history is the SDK's own accumulation of a streamed turn
(every chunk's content, in order). Its parts are grouped the way dive-google documents its
blocks: consecutive text parts with the same `thought` flag form one block, a part with a
`thoughtSignature` gives it to its block and ends it; every other part is a block of its own.
"""
from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google import genai
from google.genai import types
from pydantic import ValidationError

FIXTURE = sys.argv[1]
BODY = open(FIXTURE, "rb").read()
PATHS: list[str] = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        PATHS.append(self.path)
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)


def problems(text: str) -> list[str]:
    """Each `data:` payload (one event a blank-line-separated block) as a response on its own."""
    out = []
    for i, block in enumerate(b for b in text.replace("\r\n", "\n").split("\n\n") if b.strip()):
        data = "\n".join(line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:"))
        try:
            types.GenerateContentResponse.model_validate_json(data, strict=True)
        except ValidationError as e:
            out.append(f"#{i}: " + "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['type']}" for err in e.errors()[:4]))
    return out


def group(parts: list[dict]) -> list[dict]:
    blocks: list[dict] = []
    open_block = None
    for p in parts:
        sig = p.pop("thoughtSignature", None)
        if "text" in p and "functionCall" not in p:
            thought = bool(p.get("thought"))
            if open_block is None or open_block["thought"] != thought:
                open_block = {"text": "", "thought": thought}
                blocks.append(open_block)
            open_block["text"] += p["text"]
            if sig:
                open_block["sig"] = sig
                open_block = None
            continue
        open_block = None
        if "functionCall" in p:
            call = p["functionCall"]
            block = {"call": {"name": call["name"], "args": call.get("args", {})}}
        else:
            block = {"other": p}
        if sig:
            block["sig"] = sig
        blocks.append(block)
    return blocks


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
client = genai.Client(
    api_key="test",
    http_options=types.HttpOptions(base_url=f"http://127.0.0.1:{server.server_address[1]}"),
)
out = {"problems": problems(BODY.decode("utf-8")), "path": None, "blocks": None,
       "finish_reason": None, "usage": None, "recorded_valid": None}
chat = client.chats.create(model="gemini-test")
last = None
for chunk in chat.send_message_stream("hi"):
    last = chunk
    if chunk.candidates and chunk.candidates[0].finish_reason:
        out["finish_reason"] = chunk.candidates[0].finish_reason.value
history = chat.get_history()
parts = [p.model_dump(mode="json", by_alias=True, exclude_none=True) for c in history[1:] for p in (c.parts or [])]
out["blocks"] = group(parts)
out["usage"] = last.usage_metadata.model_dump(mode="json", by_alias=True, exclude_none=True) if last and last.usage_metadata else None
out["recorded_valid"] = len(chat.get_history(curated=True)) == len(history)
out["path"] = PATHS[0] if PATHS else None
server.shutdown()
print(json.dumps(out))
