"""Minimal OTLP/HTTP receiver (stdlib http.server + opentelemetry-proto), as a test peer.

    venv/bin/python otlp_receiver.py [--port 4318] [--out spans.jsonl]

Accepts POST /v1/traces (also /v1/logs, /v1/metrics) with
  Content-Type application/x-protobuf (default OTLP/HTTP encoding) or application/json,
  Content-Encoding gzip or none.
Prints one line per span: 'SPAN <service.name> <scope> <span name> trace=<hex> parent=<hex> attrs={...}'
and, with --out, appends one JSON object per span to the file (for assertions in tests).
Replies with an empty Export*ServiceResponse in the request's encoding, as a collector does.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict, Parse
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest, ExportLogsServiceResponse)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest, ExportMetricsServiceResponse)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest, ExportTraceServiceResponse)

KINDS = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse),
    "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse),
    "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse),
}
OUT = None


_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _hex_ids_to_b64(o):
    """OTLP/JSON encodes trace/span ids as hex strings, but protobuf's JSON mapping
    (json_format.Parse) expects bytes as base64: convert before parsing."""
    import base64

    if isinstance(o, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode() if k in _ID_KEYS and isinstance(v, str) and v
                    else _hex_ids_to_b64(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [_hex_ids_to_b64(v) for v in o]
    return o


def _attr_value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind in ("string_value", "bool_value", "int_value", "double_value") else MessageToDict(v)


def spans_of(req: ExportTraceServiceRequest):
    for rs in req.resource_spans:
        res = {a.key: _attr_value(a.value) for a in rs.resource.attributes}
        for ss in rs.scope_spans:
            for sp in ss.spans:
                yield {
                    "service": res.get("service.name"),
                    "scope": ss.scope.name,
                    "name": sp.name,
                    "kind": sp.kind,
                    "trace_id": sp.trace_id.hex(),
                    "span_id": sp.span_id.hex(),
                    "parent_span_id": sp.parent_span_id.hex(),
                    "attributes": {a.key: _attr_value(a.value) for a in sp.attributes},
                    "events": [e.name for e in sp.events],
                    "status_code": sp.status.code,
                }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        path = self.path.split("?")[0]
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n)
        if path not in KINDS:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if (self.headers.get("content-encoding") or "").lower() == "gzip":
            body = gzip.decompress(body)
        req_cls, resp_cls = KINDS[path]
        is_json = (self.headers.get("content-type") or "").startswith("application/json")
        try:
            req = (Parse(json.dumps(_hex_ids_to_b64(json.loads(body))), req_cls()) if is_json
                   else req_cls.FromString(body))
        except Exception as e:  # noqa: BLE001
            msg = f"decode error: {e}".encode()
            self.send_response(400)
            self.send_header("content-length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return
        print(f"POST {path} {self.headers.get('content-type')} {n} bytes "
              f"user-agent={self.headers.get('user-agent')!r}", flush=True)
        if path == "/v1/traces":
            for s in spans_of(req):
                print(f"SPAN {s['service']} {s['scope']} {s['name']} trace={s['trace_id']} "
                      f"parent={s['parent_span_id'] or '-'} attrs={s['attributes']}", flush=True)
                if OUT:
                    with open(OUT, "a") as f:
                        f.write(json.dumps(s) + "\n")
        resp = resp_cls()
        out = json.dumps(MessageToDict(resp)).encode() if is_json else resp.SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/json" if is_json else "application/x-protobuf")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def start(port: int = 0, out: str | None = None) -> ThreadingHTTPServer:
    import threading

    global OUT
    OUT = out
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=4318)  # 0: any free port, printed on the first line
    ap.add_argument("--out")
    a = ap.parse_args()
    OUT = a.out
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print(f"OTLP/HTTP receiver on http://127.0.0.1:{srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
