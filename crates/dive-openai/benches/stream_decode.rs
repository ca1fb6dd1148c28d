//! Stream decoding cost: a long Responses API stream (reasoning summary, text, a tool call
//! with streamed arguments) and a long Chat Completions stream, fed in 37-byte chunks through
//! `dive_provider::decode_sse` and the OpenAI mappers (with their accumulator), reported as bytes/s
//! and events/s; and the cost of one text delta of each API (`openai_text_delta`, time per
//! delta): bytes → framing → mapping, one read per event, with and without the `Events`
//! adapter and its accumulator, and of a Chat Completions tool call's argument piece.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dive_openai::Dialect;
use dive_openai::chat::{ChatEvents, ChatMapper};
use dive_openai::responses::{ResponsesEvents, ResponsesMapper};
use futures::StreamExt;
use serde_json::{Value, json};

const REASONING_DELTAS: usize = 3000;
const TEXT_DELTAS: usize = 3000;
const JSON_DELTAS: usize = 1000;

fn responses_stream() -> (Vec<u8>, u64) {
    let mut s = String::new();
    let mut n = 0u64;
    let mut push = |data: Value| {
        s.push_str(&format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap()));
        n += 1;
    };
    let base = json!({"id": "resp_bench", "object": "response", "model": "gpt-5.5", "status": "in_progress", "output": []});
    push(json!({"type": "response.created", "response": base}));
    push(
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
    );
    push(
        json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
    );
    for i in 0..REASONING_DELTAS {
        push(
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": format!(" step {i}: consider")}),
        );
    }
    push(
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAB".repeat(200)}}),
    );
    push(
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
    );
    push(
        json!({"type": "response.content_part.added", "item_id": "msg_1", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
    );
    for i in 0..TEXT_DELTAS {
        push(
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": format!(" word{i} and"), "logprobs": []}),
        );
    }
    push(
        json!({"type": "response.content_part.done", "item_id": "msg_1", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
    );
    push(
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": []}}),
    );
    push(
        json!({"type": "response.output_item.added", "output_index": 2, "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "write_file", "arguments": ""}}),
    );
    push(
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 2, "delta": "{\"content\": \""}),
    );
    for i in 0..JSON_DELTAS {
        push(
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 2, "delta": format!("line {i}\\n")}),
        );
    }
    push(
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 2, "delta": "\"}"}),
    );
    push(
        json!({"type": "response.output_item.done", "output_index": 2, "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "write_file", "arguments": "{}"}}),
    );
    let mut done = base.clone();
    done["status"] = json!("completed");
    done["usage"] = json!({"input_tokens": 5000, "output_tokens": 7000, "output_tokens_details": {"reasoning_tokens": 3000}});
    push(json!({"type": "response.completed", "response": done}));
    (s.into_bytes(), n)
}

fn chat_stream() -> (Vec<u8>, u64) {
    let mut s = String::new();
    let mut n = 0u64;
    let mut push = |delta: Value, finish: Value| {
        let chunk = json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "gpt-5.5",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        s.push_str(&format!("data: {chunk}\n\n"));
        n += 1;
    };
    push(json!({"role": "assistant", "content": ""}), Value::Null);
    for i in 0..TEXT_DELTAS {
        push(json!({"content": format!(" word{i} and")}), Value::Null);
    }
    push(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": ""}}]}),
        Value::Null,
    );
    for i in 0..JSON_DELTAS {
        push(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": format!("line {i} ")}}]}),
            Value::Null,
        );
    }
    push(json!({}), json!("tool_calls"));
    s.push_str("data: [DONE]\n\n");
    (s.into_bytes(), n + 1)
}

fn chunks(bytes: &[u8]) -> Vec<Result<Bytes, std::io::Error>> {
    bytes.chunks(37).map(|c| Ok(Bytes::copy_from_slice(c))).collect()
}

async fn run_responses(bytes: &[u8]) -> usize {
    let sse = Box::pin(dive_provider::decode_sse("openai", futures::stream::iter(chunks(bytes))));
    let pricing = dive_openai::model_info("gpt-5.5").and_then(|m| m.pricing.clone());
    let events = ResponsesEvents::new("openai", sse, ResponsesMapper::new("openai"), pricing);
    events.fold(0, |n, e| async move { n + usize::from(e.is_ok()) }).await
}

async fn run_chat(bytes: &[u8]) -> usize {
    let sse = Box::pin(dive_provider::decode_sse("openai", futures::stream::iter(chunks(bytes))));
    let pricing = dive_openai::model_info("gpt-5.5").and_then(|m| m.pricing.clone());
    let events = ChatEvents::new("openai", sse, ChatMapper::new("openai", Dialect::openai()), pricing);
    events.fold(0, |n, e| async move { n + usize::from(e.is_ok()) }).await
}

fn bench(c: &mut Criterion) {
    let (responses, responses_events) = responses_stream();
    let (chat, chat_events) = chat_stream();
    assert!(futures::executor::block_on(run_responses(&responses)) > 7000);
    assert!(futures::executor::block_on(run_chat(&chat)) > 4000);

    let mut group = c.benchmark_group("openai_stream_decode");
    group.throughput(Throughput::Bytes(responses.len() as u64));
    group.bench_function(format!("responses_{responses_events}_events_bytes"), |b| {
        b.iter(|| futures::executor::block_on(run_responses(black_box(&responses))));
    });
    group.throughput(Throughput::Elements(responses_events));
    group.bench_function(format!("responses_{responses_events}_events"), |b| {
        b.iter(|| futures::executor::block_on(run_responses(black_box(&responses))));
    });
    group.throughput(Throughput::Elements(chat_events));
    group.bench_function(format!("chat_{chat_events}_events"), |b| {
        b.iter(|| futures::executor::block_on(run_chat(black_box(&chat))));
    });
    group.finish();
}

const DELTAS: u64 = 2000;

/// A token of text: short words, one in ten with JSON escapes (as it stands in the JSON).
fn token(i: u64) -> String {
    if i % 10 == 9 { format!(r#"\"{i}\"\n"#) } else { format!(" word{i}") }
}

/// One read of a body that lives as long as the benchmark: cloning and dropping it touches no
/// reference count, so the time per delta is the decoder's (a body's reads are handed over
/// once; the clone an iteration makes is the benchmark's own).
fn static_read(event: String) -> Bytes {
    Bytes::from_static(Box::leak(event.into_bytes().into_boxed_slice()))
}

/// A Responses answer of `DELTAS` text deltas in the API's byte shape, one read per event (see
/// [`static_read`]).
fn responses_text() -> Vec<Bytes> {
    let item = "msg_68d7eff9c3b8819683eb04cbeb3775d507152cb8c6ac9072";
    let mut events = vec![
        json!({"type": "response.created", "response": {"id": "resp_bench", "object": "response", "model": "gpt-5.5", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": item, "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
        json!({"type": "response.content_part.added", "item_id": item, "output_index": 0, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
    ]
    .into_iter()
    .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
    .collect::<Vec<_>>();
    for i in 0..DELTAS {
        // The wire's own key order (`json!` would sort the keys).
        events.push(format!(
            "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"sequence_number\":{},\"item_id\":\"{item}\",\"output_index\":0,\"content_index\":0,\"delta\":\"{}\",\"logprobs\":[],\"obfuscation\":\"jWSe9qxZ10e\"}}\n\n",
            i + 3,
            token(i)
        ));
    }
    let done = json!({"type": "response.completed", "response": {"id": "resp_bench", "object": "response", "model": "gpt-5.5", "status": "completed", "output": [],
        "usage": {"input_tokens": 5000, "output_tokens": 2000}}});
    events.push(format!("event: response.completed\ndata: {done}\n\n"));
    events.into_iter().map(static_read).collect()
}

/// A Chat Completions answer of `DELTAS` content chunks in the API's byte shape, one read per
/// event (see [`static_read`]).
fn chat_text() -> Vec<Bytes> {
    let chunk = |delta: &str, finish: &str| {
        format!(
            "data: {{\"id\":\"chatcmpl-9nhARrdUiJWEMd5plwV1Gc9NCjb9M\",\"object\":\"chat.completion.chunk\",\"created\":1721631035,\"model\":\"gpt-5.5\",\"system_fingerprint\":\"fp_18cc0f1fa0\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]}}\n\n"
        )
    };
    let mut events = vec![chunk(r#"{"role":"assistant","content":""}"#, "null")];
    for i in 0..DELTAS {
        events.push(chunk(&format!(r#"{{"content":"{}"}}"#, token(i)), "null"));
    }
    events.push(chunk("{}", r#""stop""#));
    events.push("data: [DONE]\n\n".to_owned());
    events.into_iter().map(static_read).collect()
}

/// A Chat Completions tool call whose arguments arrive in `DELTAS` pieces, in the API's byte
/// shape (a recorded stream's), one read per event (see [`static_read`]).
fn chat_arguments() -> Vec<Bytes> {
    let chunk = |delta: &str, finish: &str| {
        format!(
            "data: {{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"created\":1764556800,\"model\":\"gpt-5.5-2026-10-01\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_a1\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}],\"usage\":null}}\n\n"
        )
    };
    let mut events = vec![
        chunk(r#"{"role":"assistant","content":null}"#, "null"),
        chunk(
            r#"{"tool_calls":[{"index":0,"id":"call_Paris01","type":"function","function":{"name":"write_file","arguments":""}}]}"#,
            "null",
        ),
    ];
    for i in 0..DELTAS {
        let piece = token(i);
        events.push(chunk(
            &format!(r#"{{"tool_calls":[{{"index":0,"function":{{"arguments":"{piece}"}}}}]}}"#),
            "null",
        ));
    }
    events.push(chunk("{}", r#""tool_calls""#));
    events.push("data: [DONE]\n\n".to_owned());
    events.into_iter().map(static_read).collect()
}

/// Framing and a mapper alone (no `Events` adapter, no accumulator): the events out.
fn frame_and_map<M: dive_provider::StreamMapper<Frame = dive_provider::SseEvent>>(
    reads: &[Bytes],
    mut mapper: M,
) -> usize {
    let input = futures::stream::iter(reads.iter().cloned().map(Ok::<_, std::io::Error>));
    let mut sse = dive_provider::decode_sse("openai", input);
    let mut out = std::collections::VecDeque::new();
    futures::executor::block_on(async {
        let mut n = 0;
        while let Some(e) = sse.next().await {
            // The mapper as the adapter calls it: the frame's last event returned.
            let last = mapper.map_last(&mut e.unwrap(), &mut out).unwrap();
            n += out.len() + usize::from(last.is_some());
            drop(black_box(last));
            out.drain(..).for_each(|e| drop(black_box(e)));
        }
        n
    })
}

/// The full path on reads of whole events: the events out, every one `Ok` (read as the
/// other providers' benchmarks read them).
async fn full_path<M: dive_provider::StreamMapper<Frame = dive_provider::SseEvent>>(
    reads: &[Bytes],
    mapper: M,
) -> usize {
    // Bytes clones share the buffer; the provider's stream owns its input ('static).
    let owned: Vec<Bytes> = reads.to_vec();
    let input = futures::stream::iter(owned.into_iter().map(Ok::<_, std::io::Error>));
    let sse = Box::pin(dive_provider::decode_sse("openai", input));
    let mut events = dive_provider::Events::new("openai", sse, mapper, None);
    let mut n = 0;
    while let Some(e) = events.next().await {
        black_box(e.unwrap());
        n += 1;
    }
    n
}

fn text_delta(c: &mut Criterion) {
    let responses = responses_text();
    let chat = chat_text();
    let responses_mapper = || ResponsesMapper::new("openai");
    let chat_mapper = || ChatMapper::new("openai", Dialect::openai());
    // start, block start, the deltas, block stop, message delta, stop
    let events = DELTAS as usize + 5;
    assert_eq!(futures::executor::block_on(full_path(&responses, responses_mapper())), events);
    assert_eq!(frame_and_map(&responses, responses_mapper()), events);
    assert_eq!(futures::executor::block_on(full_path(&chat, chat_mapper())), events);
    assert_eq!(frame_and_map(&chat, chat_mapper()), events);
    let arguments = chat_arguments();
    assert_eq!(futures::executor::block_on(full_path(&arguments, chat_mapper())), events);
    let mut g = c.benchmark_group("openai_text_delta");
    g.throughput(Throughput::Elements(DELTAS));
    g.bench_function("responses_full_path", |b| {
        b.iter(|| futures::executor::block_on(full_path(black_box(&responses), responses_mapper())));
    });
    g.bench_function("responses_framing_and_mapping", |b| {
        b.iter(|| frame_and_map(black_box(&responses), responses_mapper()));
    });
    g.bench_function("chat_full_path", |b| {
        b.iter(|| futures::executor::block_on(full_path(black_box(&chat), chat_mapper())));
    });
    g.bench_function("chat_framing_and_mapping", |b| {
        b.iter(|| frame_and_map(black_box(&chat), chat_mapper()))
    });
    g.bench_function("chat_tool_arguments_full_path", |b| {
        b.iter(|| futures::executor::block_on(full_path(black_box(&arguments), chat_mapper())));
    });
    g.finish();
}

criterion_group!(benches, bench, text_delta);
criterion_main!(benches);
