"""MCP test server on the official Python SDK (mcp 2.x, pinned in
crates/dive-test/interop/requirements.txt), for dive-mcp's client tests.

    python mcp_server.py                  # stdio
    python mcp_server.py http PORT        # streamable HTTP on 127.0.0.1:PORT/mcp

Grown from ../../../../../shared/testbed/mcp_stdio_server.py. Tools:
  add(a, b) -> a + b        structured output {"result": int}
  echo(text) -> text        read-only, closed-world annotations
  fail()                    raises: CallToolResult.isError = true
  picture()                 an image and an audio clip
  slow(seconds)             sleeps
  greet_user()              elicits a name (input_required on 2026-07-28), then greets
  grow()                    adds the tool `late` and announces the tool list changed
Resource note://hello (text), prompt greet(name).
"""
import sys

from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.utilities.types import Audio, Image
from mcp.types import ToolAnnotations

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "

mcp = MCPServer("dive-test-peer")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def fail() -> str:
    """Always raises, to exercise tool-error reporting."""
    raise ValueError("boom")


@mcp.tool()
def picture() -> list:
    """An image and an audio clip."""
    return [Image(data=PNG, format="png"), Audio(data=WAV, format="wav")]


@mcp.tool()
async def slow(seconds: float) -> str:
    """Sleeps, to exercise call timeouts."""
    import anyio

    await anyio.sleep(seconds)
    return "slept"


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool()
def greet_user(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Asks the user's name (an elicitation), then greets them."""
    return f"hello {who.name}"


def late() -> str:
    """A tool that exists only after grow()."""
    return "late"


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `late` and tell clients the tool list changed."""
    if "late" not in [t.name for t in await mcp.list_tools()]:
        mcp.add_tool(late)
    try:
        await ctx.notify_tools_changed()  # 2026-07-28 clients (subscriptions/listen)
    except Exception:  # noqa: BLE001 - not available on this connection
        pass
    try:
        await ctx.session.send_tool_list_changed()  # 2025-11-25 clients
    except Exception:  # noqa: BLE001
        pass
    return "grown"


@mcp.resource("note://hello", mime_type="text/plain")
def hello() -> str:
    """A note."""
    return "hello from a resource"


@mcp.prompt()
def greet(name: str) -> str:
    """Greets someone."""
    return f"Say hello to {name}."


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
