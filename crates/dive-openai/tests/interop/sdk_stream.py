"""Feed an SSE fixture to the official `openai` Python SDK and print what it makes of it.

Usage: python3 sdk_stream.py KIND FIXTURE      KIND: openai-chat | openai-responses
Prints one JSON object:
  {"problems": [...event-by-event check (validate_stream.py)...],
   "message": <the SDK's accumulated final ChatCompletion / Response, mode=json> | null,
   "error": {"type": ..., "message": ...} | null}
The fixture is served by a local stdlib HTTP server to `client.chat.completions.stream(...)`
or `client.responses.stream(...)`, the SDK's own accumulators (the path an application
using the SDK takes).
"""
from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The event-by-event validator is shared by every provider's interop tests (in dive-test).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dive-test", "interop"))
import validate_stream  # noqa: E402

import openai  # noqa: E402

KIND, FIXTURE = sys.argv[1], sys.argv[2]
BODY = open(FIXTURE, "rb").read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
client = openai.OpenAI(api_key="test", base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", max_retries=0)
out = {"problems": validate_stream.validate(KIND, BODY.decode("utf-8")), "message": None, "error": None}
try:
    if KIND == "openai-chat":
        with client.chat.completions.stream(model="gpt-test", messages=[{"role": "user", "content": "hi"}],
                                            stream_options={"include_usage": True}) as s:
            for _ in s:
                pass
            out["message"] = s.get_final_completion().model_dump(mode="json", exclude_none=True)
    else:
        with client.responses.stream(model="gpt-test", input="hi") as s:
            for _ in s:
                pass
            out["message"] = s.get_final_response().model_dump(mode="json", exclude_none=True)
except Exception as e:  # noqa: BLE001
    out["error"] = {"type": type(e).__name__, "message": str(e)}
server.shutdown()
print(json.dumps(out))
