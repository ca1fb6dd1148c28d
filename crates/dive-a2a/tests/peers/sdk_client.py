"""The official a2a-sdk client (1.3.0) against a dive-a2a server; prints one PASS/FAIL line a
step and ends with 'N passed, N failed' (exit 1 on any failure).

    python sdk_client.py PLAIN_URL ASKING_URL [--bearer TOKEN] [--transport JSONRPC|HTTP+JSON]

PLAIN_URL serves an agent without tools (TestModel: 'Test response to: <input>');
ASKING_URL serves an agent whose one tool suspends with the question 'What is your name?'.
"""
from __future__ import annotations

import argparse
import asyncio
import uuid

import httpx

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.client.errors import A2AClientError
from a2a.helpers.proto_helpers import get_artifact_text
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import A2AError, TaskNotCancelableError, TaskNotFoundError

results: list[bool] = []


def report(ok: bool, name: str, detail: str = "") -> None:
    results.append(bool(ok))
    print(f"[{'PASS' if ok else 'FAIL'}] {name}{': ' + detail if detail else ''}", flush=True)


def user_msg(text: str, task_id: str | None = None, context_id: str | None = None) -> Message:
    m = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    if task_id:
        m.task_id = task_id
    if context_id:
        m.context_id = context_id
    return m


TRANSPORT = "JSONRPC"


async def clients(base: str, headers: dict[str, str]):
    http = httpx.AsyncClient(timeout=30, headers=headers)
    card = await A2ACardResolver(http, base).get_agent_card()
    streaming = await create_client(card, client_config=ClientConfig(streaming=True, httpx_client=http, supported_protocol_bindings=[TRANSPORT], use_client_preference=True))
    blocking = await create_client(card, client_config=ClientConfig(streaming=False, httpx_client=http, supported_protocol_bindings=[TRANSPORT], use_client_preference=True))
    return card, streaming, blocking


async def plain(base: str, headers: dict[str, str]) -> None:
    card, streaming, blocking = await clients(base, headers)
    bindings = [i.protocol_binding for i in card.supported_interfaces]
    report(bool(card.name) and bindings == ["JSONRPC", "HTTP+JSON"],
           "agent card resolved", f"name={card.name} skills={[s.id for s in card.skills]} bindings={bindings}")

    kinds, text, task_id, final = [], "", None, None
    async for ev in streaming.send_message(SendMessageRequest(message=user_msg("hello stream"))):
        kind = ev.WhichOneof("payload")
        kinds.append(kind)
        if kind == "task":
            task_id = ev.task.id
        elif kind == "artifact_update":
            text += get_artifact_text(ev.artifact_update.artifact)
        elif kind == "status_update":
            final = ev.status_update.status.state
    report(task_id and text == "Test response to: hello stream" and final == TaskState.TASK_STATE_COMPLETED,
           "streaming send", f"events={kinds} text={text!r}")

    got = [ev async for ev in blocking.send_message(SendMessageRequest(message=user_msg("hello blocking")))]
    task = got[0].task if got and got[0].WhichOneof("payload") == "task" else None
    report(task is not None and task.status.state == TaskState.TASK_STATE_COMPLETED
           and get_artifact_text(task.artifacts[0]) == "Test response to: hello blocking",
           "blocking send -> completed task", f"{task.status.state if task else got}")

    nb = [ev async for ev in blocking.send_message(SendMessageRequest(
        message=user_msg("hello later"), configuration=SendMessageConfiguration(return_immediately=True)))]
    nb_task = nb[0].task if nb and nb[0].WhichOneof("payload") == "task" else None
    report(nb_task is not None and nb_task.status.state in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING),
           "non-blocking send returns at once", f"state={nb_task.status.state if nb_task else nb}")
    for _ in range(200):
        later = await blocking.get_task(GetTaskRequest(id=nb_task.id))
        if later.status.state == TaskState.TASK_STATE_COMPLETED:
            break
        await asyncio.sleep(0.02)
    report(later.status.state == TaskState.TASK_STATE_COMPLETED, "non-blocking task completes", f"{later.status.state}")

    fetched = await blocking.get_task(GetTaskRequest(id=task_id))
    report(fetched.status.state == TaskState.TASK_STATE_COMPLETED and len(fetched.history) >= 2,
           "get_task", f"history={len(fetched.history)}")

    try:
        await blocking.get_task(GetTaskRequest(id="no-such-task"))
        report(False, "get_task of an unknown task fails")
    except TaskNotFoundError:
        report(True, "get_task of an unknown task fails", "TaskNotFoundError")

    page1 = await blocking.list_tasks(ListTasksRequest(page_size=2))
    page2 = await blocking.list_tasks(ListTasksRequest(page_size=2, page_token=page1.next_page_token))
    ids = [t.id for t in page1.tasks] + [t.id for t in page2.tasks]
    report(page1.total_size == 3 and len(page1.tasks) == 2 and page1.next_page_token and len(page2.tasks) == 1
           and not page2.next_page_token and len(set(ids)) == 3 and task_id in ids,
           "list_tasks pages", f"total={page1.total_size} pages={len(page1.tasks)}+{len(page2.tasks)}")

    try:
        await blocking.cancel_task(CancelTaskRequest(id=task_id))
        report(False, "cancel of a completed task fails")
    except TaskNotCancelableError:
        report(True, "cancel of a completed task fails", "TaskNotCancelableError")


async def asking(base: str, headers: dict[str, str]) -> None:
    _, streaming, blocking = await clients(base, headers)
    got = [ev async for ev in blocking.send_message(SendMessageRequest(message=user_msg("who am I?")))]
    task = got[0].task
    question = task.status.message.parts[0].text if task.status.message.parts else ""
    report(task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED and "What is your name?" in question,
           "suspension -> input-required", f"state={task.status.state} question={question!r}")

    final = None
    text = ""
    async for ev in streaming.send_message(SendMessageRequest(message=user_msg("Ada", task_id=task.id, context_id=task.context_id))):
        if ev.WhichOneof("payload") == "status_update":
            final = ev.status_update.status.state
        elif ev.WhichOneof("payload") == "artifact_update":
            text += get_artifact_text(ev.artifact_update.artifact)
    report(final == TaskState.TASK_STATE_COMPLETED and "Ada" in text, "answer resumes the task", f"text={text!r}")

    got = [ev async for ev in blocking.send_message(SendMessageRequest(message=user_msg("ask me again")))]
    waiting = got[0].task
    canceled = await blocking.cancel_task(CancelTaskRequest(id=waiting.id))
    again = await blocking.get_task(GetTaskRequest(id=waiting.id))
    report(canceled.status.state == TaskState.TASK_STATE_CANCELED and again.status.state == TaskState.TASK_STATE_CANCELED,
           "cancel an input-required task", f"{canceled.status.state}")


async def unauthorized(base: str) -> None:
    _, _, blocking = await clients(base, {})
    try:
        await blocking.get_task(GetTaskRequest(id="x"))
        report(False, "a request without the token is refused")
    except (A2AClientError, A2AError) as e:
        report("401" in str(e), "a request without the token is refused", str(e)[:140])


async def main(a) -> int:
    global TRANSPORT
    TRANSPORT = a.transport
    print(f"transport {TRANSPORT}", flush=True)
    headers = {"Authorization": f"Bearer {a.bearer}"} if a.bearer else {}
    await plain(a.plain, headers)
    await asking(a.asking, headers)
    if a.bearer:
        await unauthorized(a.plain)
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("plain")
    ap.add_argument("asking")
    ap.add_argument("--bearer")
    ap.add_argument("--transport", default="JSONRPC")
    raise SystemExit(asyncio.run(main(ap.parse_args())))
