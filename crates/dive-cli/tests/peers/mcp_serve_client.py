"""Drives `dive mcp serve` with the official Python MCP client (mcp 2.x, pinned in
crates/dive-test/interop/requirements.txt).

    python mcp_serve_client.py DIVE_BINARY WORKSPACE

Expects notes.txt in WORKSPACE holding MARKER-4402, and the default permission mode (a Write
is refused: it would ask). Prints one line per check and exits 1 unless all pass.
"""
import asyncio
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main(binary: str, workspace: str) -> int:
    params = StdioServerParameters(command=binary, args=["mcp", "serve", "--workspace", workspace, "--session-dir", workspace])
    checks = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            checks.append(("initialize", init.server_info.name == "dive", init.server_info.name))
            tools = {t.name: t for t in (await s.list_tools()).tools}
            checks.append(("tools", {"Read", "Write", "Edit", "Glob", "Grep", "Bash"} <= set(tools), str(sorted(tools))))
            schema = tools["Read"].input_schema if "Read" in tools else {}
            checks.append(("schema", "file_path" in schema.get("properties", {}), str(schema)))
            r = await s.call_tool("Read", {"file_path": "notes.txt"})
            text = "".join(c.text for c in r.content if hasattr(c, "text"))
            checks.append(("read", not r.is_error and "MARKER-4402" in text, text))
            r = await s.call_tool("Write", {"file_path": "out.txt", "content": "x"})
            text = "".join(c.text for c in r.content if hasattr(c, "text"))
            checks.append(("write refused", r.is_error is True and "needs approval" in text, text))
    failed = [c for c in checks if not c[1]]
    for name, ok, detail in checks:
        print(f"{'ok' if ok else 'FAIL'} {name}: {detail}")
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
