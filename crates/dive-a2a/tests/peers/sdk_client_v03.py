"""The a2a-sdk client (1.3.0) speaking A2A 0.3 (its compat transport, chosen by a card whose
only interface says protocolVersion 0.3) against a dive-a2a server in 0.3 compatibility
mode; prints PASS/FAIL a step and 'N passed, N failed'.

    python sdk_client_v03.py BASE_URL
"""
from __future__ import annotations

import asyncio
import sys
import uuid

import httpx

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.helpers.proto_helpers import get_artifact_text
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState

results: list[bool] = []


def report(ok: bool, name: str, detail: str = "") -> None:
    results.append(bool(ok))
    print(f"[{'PASS' if ok else 'FAIL'}] {name}{': ' + detail if detail else ''}", flush=True)


def user_msg(text: str) -> Message:
    return Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])


async def main(base: str) -> int:
    http = httpx.AsyncClient(timeout=30)
    card = await A2ACardResolver(http, base).get_agent_card()
    legacy = [i for i in card.supported_interfaces if i.protocol_version == "0.3"]
    report(len(legacy) == 1, "the card lists a 0.3 interface", str([(i.protocol_binding, i.protocol_version) for i in card.supported_interfaces]))
    del card.supported_interfaces[:]
    card.supported_interfaces.extend(legacy)

    streaming = await create_client(card, client_config=ClientConfig(streaming=True, httpx_client=http))
    report(type(streaming._transport).__name__.startswith("Compat"), "the 0.3 transport is used", type(streaming._transport).__name__)
    text, final, task_id = "", None, None
    async for ev in streaming.send_message(SendMessageRequest(message=user_msg("old stream"))):
        kind = ev.WhichOneof("payload")
        if kind == "task":
            task_id = ev.task.id
        elif kind == "artifact_update":
            text += get_artifact_text(ev.artifact_update.artifact)
        elif kind == "status_update":
            final = ev.status_update.status.state
    report(text == "Test response to: old stream" and final == TaskState.TASK_STATE_COMPLETED, "0.3 message/stream", f"text={text!r}")

    blocking = await create_client(card, client_config=ClientConfig(streaming=False, httpx_client=http))
    got = [ev async for ev in blocking.send_message(SendMessageRequest(message=user_msg("old send")))]
    task = got[0].task if got and got[0].WhichOneof("payload") == "task" else None
    report(task is not None and task.status.state == TaskState.TASK_STATE_COMPLETED
           and get_artifact_text(task.artifacts[0]) == "Test response to: old send", "0.3 message/send", str(task.status.state if task else got))

    fetched = await blocking.get_task(GetTaskRequest(id=task_id))
    report(fetched.status.state == TaskState.TASK_STATE_COMPLETED and len(fetched.history) == 2, "0.3 tasks/get", f"history={len(fetched.history)}")
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1])))
