"""MCP server behind OAuth 2.1 on the official Python SDK (mcp 2.x, pinned in
crates/dive-test/interop/requirements.txt), for dive-mcp's OAuth client tests.

    python mcp_oauth_server.py PORT [TOKEN_TTL_SECONDS]

One process is both the authorization server (the SDK's routes: metadata discovery, dynamic
client registration, /authorize, /token with PKCE verification, refresh) and the protected
resource at http://127.0.0.1:PORT/mcp (401 with a WWW-Authenticate challenge without a valid
bearer token). /authorize approves at once (no login page): a GET on the authorization URL
answers 302 to the client's redirect URI with a code, as a browser would after consent.
Access tokens live TOKEN_TTL_SECONDS (default 3600), so a test can make one expire.

Tools: echo(text) -> text; auth_stats() -> {"codes": n, "refreshes": n, "client": id}.
"""
import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthToken

PORT = int(sys.argv[1])
TTL = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
BASE = f"http://127.0.0.1:{PORT}"


class Provider:
    """An in-memory authorization server that approves every request."""

    def __init__(self):
        self.clients = {}
        self.codes = {}
        self.access = {}
        self.refresh = {}
        self.code_exchanges = 0
        self.refreshes = 0

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params):
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        self.code_exchanges += 1
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        self.refresh.pop(refresh_token.token, None)
        self.refreshes += 1
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token):
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token):
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id, scopes, resource):
        access = secrets.token_urlsafe(24)
        refresh = secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + TTL,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=TTL,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )


provider = Provider()
mcp = MCPServer(
    "dive-oauth-peer",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=f"{BASE}/mcp",
        validate_token_resource=False,
        required_scopes=["mcp"],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["mcp"], default_scopes=["mcp"]
        ),
    ),
)


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def auth_stats() -> dict:
    """How many codes and refresh tokens were exchanged, and the caller's client id."""
    token = get_access_token()
    return {
        "codes": provider.code_exchanges,
        "refreshes": provider.refreshes,
        "client": token.client_id if token else None,
    }


if __name__ == "__main__":
    mcp.run("streamable-http", host="127.0.0.1", port=PORT)
