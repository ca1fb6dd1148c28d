"""Drives an MCP server with the official Python client (mcp 2.x, pinned in
crates/dive-test/interop/requirements.txt), for dive-mcp's server tests.

    python mcp_client.py stdio COMMAND [ARGS...]
    python mcp_client.py http URL

Grown from ../../../../../shared/testbed/mcp_stdio_client.py. Expects the tools of
`dive-mcp-demo` (echo, add, fail) plus any extra tool named on DIVE_EXTRA_TOOL with input
{"input": "..."}; prints one line per check and exits 1 unless all pass.
"""
import asyncio
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


async def checks(s: ClientSession) -> list[tuple[str, bool, str]]:
    out = []
    init = await s.initialize()
    out.append(("initialize", bool(init.server_info.name), f"{init.protocol_version} {init.server_info.name}"))
    tools = await s.list_tools()
    by_name = {t.name: t for t in tools.tools}
    out.append(("tools", {"echo", "add", "fail"} <= set(by_name), str(sorted(by_name))))
    schema = by_name["add"].input_schema if "add" in by_name else {}
    out.append(("schema", schema.get("required") == ["a", "b"], str(schema)))
    ann = by_name["echo"].annotations if "echo" in by_name else None
    out.append(("annotations", bool(ann and ann.read_only_hint), str(ann)))
    r = await s.call_tool("add", {"a": 2, "b": 3})
    out.append(("add", r.content[0].text == "5" and not r.is_error, f"{r.content} {r.is_error}"))
    r = await s.call_tool("echo", {"text": "héllo"})
    out.append(("echo", r.content[0].text == "héllo", str(r.content)))
    # A background tool: this client declares no tasks extension, so the server awaits it.
    r = await s.call_tool("wait", {})
    out.append(("wait", not r.is_error and r.content[0].text == "waited", f"{r.content} {r.is_error}"))
    r = await s.call_tool("fail", {})
    out.append(("fail", r.is_error is True and "boom" in r.content[0].text, f"{r.content} {r.is_error}"))
    extra = os.environ.get("DIVE_EXTRA_TOOL")
    if extra:
        r = await s.call_tool(extra, {"input": "ping"})
        text = r.content[0].text if r.content else ""
        out.append((extra, not r.is_error and text == os.environ.get("DIVE_EXTRA_EXPECT", ""), text))
    return out


async def main(argv: list[str]) -> int:
    mode, rest = argv[0], argv[1:]
    if mode == "stdio":
        params = StdioServerParameters(command=rest[0], args=rest[1:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                results = await checks(s)
    elif mode == "http":
        async with streamable_http_client(rest[0]) as (read, write, *_):
            async with ClientSession(read, write) as s:
                results = await checks(s)
    else:
        print(f"unknown mode {mode}")
        return 2
    for name, ok, detail in results:
        print(("ok  " if ok else "FAIL"), name, detail)
    failed = sum(1 for _, ok, _ in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
