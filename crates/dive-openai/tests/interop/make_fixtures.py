"""Writes the Responses API SSE fixtures in ../fixtures (run from this folder).

Realistic event sequences as OpenAI sends them (sequence numbers, in_progress snapshots,
`*.done` events), built from one final `response` object each so every event agrees with
the final response:
  responses_reasoning_tools.sse  reasoning item with two summary parts and encrypted content,
                                 a commentary message with `phase`, two parallel function calls
  responses_web_search.sse       a web_search_call item, a final_answer message whose text
                                 carries a url_citation annotation, cached and reasoning usage
  responses_incomplete.sse       a function call cut by max_output_tokens (status incomplete)
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def base(rid, model):
    return {"id": rid, "object": "response", "created_at": 1764556800, "model": model, "output": [],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "status": "in_progress",
            "error": None, "incomplete_details": None, "instructions": None, "metadata": {},
            "temperature": 1.0, "top_p": 1.0, "usage": None, "service_tier": "auto",
            "background": False, "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "reasoning": {"effort": "medium", "summary": "auto"}, "truncation": "disabled"}


def chunks(text, n):
    size = max(1, len(text) // n)
    return [text[i:i + size] for i in range(0, len(text), size)]


def item_events(i, item):
    t = item["type"]
    ev = []
    if t == "reasoning":
        ev.append({"type": "response.output_item.added", "output_index": i,
                   "item": {**item, "summary": [], "encrypted_content": None}})
        for s, part in enumerate(item["summary"]):
            ev.append({"type": "response.reasoning_summary_part.added", "item_id": item["id"], "output_index": i,
                       "summary_index": s, "part": {"type": "summary_text", "text": ""}})
            for c in chunks(part["text"], 3):
                ev.append({"type": "response.reasoning_summary_text.delta", "item_id": item["id"],
                           "output_index": i, "summary_index": s, "delta": c})
            ev.append({"type": "response.reasoning_summary_text.done", "item_id": item["id"], "output_index": i,
                       "summary_index": s, "text": part["text"]})
            ev.append({"type": "response.reasoning_summary_part.done", "item_id": item["id"], "output_index": i,
                       "summary_index": s, "part": part})
    elif t == "message":
        ev.append({"type": "response.output_item.added", "output_index": i,
                   "item": {**item, "status": "in_progress", "content": []}})
        for c, part in enumerate(item["content"]):
            ev.append({"type": "response.content_part.added", "item_id": item["id"], "output_index": i,
                       "content_index": c, "part": {**part, "text": "", "annotations": []}})
            for piece in chunks(part["text"], 4):
                ev.append({"type": "response.output_text.delta", "item_id": item["id"], "output_index": i,
                           "content_index": c, "delta": piece, "logprobs": []})
            for a, ann in enumerate(part["annotations"]):
                ev.append({"type": "response.output_text.annotation.added", "item_id": item["id"],
                           "output_index": i, "content_index": c, "annotation_index": a, "annotation": ann})
            ev.append({"type": "response.output_text.done", "item_id": item["id"], "output_index": i,
                       "content_index": c, "text": part["text"], "logprobs": []})
            ev.append({"type": "response.content_part.done", "item_id": item["id"], "output_index": i,
                       "content_index": c, "part": part})
    elif t == "function_call":
        ev.append({"type": "response.output_item.added", "output_index": i,
                   "item": {**item, "arguments": "", "status": "in_progress"}})
        for piece in chunks(item["arguments"], 3):
            ev.append({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                       "output_index": i, "delta": piece})
        ev.append({"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": i,
                   "arguments": item["arguments"]})
    elif t == "web_search_call":
        ev.append({"type": "response.output_item.added", "output_index": i,
                   "item": {**item, "status": "in_progress"}})
        for name in ("in_progress", "searching", "completed"):
            ev.append({"type": f"response.web_search_call.{name}", "item_id": item["id"], "output_index": i})
    ev.append({"type": "response.output_item.done", "output_index": i, "item": item})
    return ev


def write(name, final, end="response.completed"):
    start = {k: v for k, v in final.items()}
    start.update({"status": "in_progress", "output": [], "usage": None, "incomplete_details": None})
    events = [{"type": "response.created", "response": start}, {"type": "response.in_progress", "response": start}]
    for i, item in enumerate(final["output"]):
        events += item_events(i, item)
    events.append({"type": end, "response": final})
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        for n, ev in enumerate(events):
            ev = {**ev, "sequence_number": n}
            f.write(f"event: {ev['type']}\ndata: {json.dumps(ev, separators=(',', ':'), ensure_ascii=False)}\n\n")


reasoning = {"id": "rs_0a1b2c", "type": "reasoning", "encrypted_content": "gAAAAABpQ0ZW-enc-reasoning-blob==",
             "summary": [{"type": "summary_text", "text": "**Planning the lookup**\n\nThe user wants the weather in two cities."},
                         {"type": "summary_text", "text": "**Calling tools**\n\nI'll query Paris and Oslo in parallel."}]}
commentary = {"id": "msg_0c0m", "type": "message", "role": "assistant", "status": "completed", "phase": "commentary",
              "content": [{"type": "output_text", "text": "Checking both cities — one moment.", "annotations": [], "logprobs": []}]}
fc1 = {"id": "fc_01", "type": "function_call", "status": "completed", "call_id": "call_Paris01", "name": "get_weather",
       "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"}
fc2 = {"id": "fc_02", "type": "function_call", "status": "completed", "call_id": "call_Oslo02", "name": "get_weather",
       "arguments": "{\"city\":\"Oslo\",\"unit\":\"celsius\"}"}
final = base("resp_tools01", "gpt-5.5-2026-10-01")
final.update({"status": "completed", "output": [reasoning, commentary, fc1, fc2],
              "usage": {"input_tokens": 2100, "input_tokens_details": {"cached_tokens": 1920, "cache_write_tokens": 0},
                        "output_tokens": 380, "output_tokens_details": {"reasoning_tokens": 256}, "total_tokens": 2480}})
write("responses_reasoning_tools.sse", final)

search = {"id": "ws_07", "type": "web_search_call", "status": "completed",
          "action": {"type": "search", "query": "Rust 1.95 release notes", "sources": [{"type": "url", "url": "https://blog.rust-lang.org/"}]}}
answer = {"id": "msg_0f1n", "type": "message", "role": "assistant", "status": "completed", "phase": "final_answer",
          "content": [{"type": "output_text", "text": "Rust 1.95 stabilises several APIs.", "logprobs": [],
                       "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 9,
                                        "url": "https://blog.rust-lang.org/", "title": "Rust Blog"}]}]}
final = base("resp_search02", "gpt-5.5-2026-10-01")
final.update({"status": "completed", "output": [search, answer], "service_tier": "default",
              "usage": {"input_tokens": 8000, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                        "output_tokens": 120, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 8120}})
write("responses_web_search.sse", final)

cut = {"id": "fc_09", "type": "function_call", "status": "incomplete", "call_id": "call_Cut09", "name": "write_file",
       "arguments": "{\"path\":\"notes.md\",\"content\":\"# Not"}
final = base("resp_cut03", "gpt-5.5-2026-10-01")
final.update({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": [cut],
              "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                        "output_tokens": 16, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 66}})
write("responses_incomplete.sse", final, end="response.incomplete")
