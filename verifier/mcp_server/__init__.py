"""``verifier mcp``: an MCP server over stdio (the official ``mcp`` SDK, an extra).

Four tools: ``check`` a contract, ``run`` one over cases, ``audit`` the store and
``evaluate`` a prompt (the seed's tool). Every path a client names is resolved against
one root directory and must stay inside it (see :mod:`verifier.mcp_server.root`).

No name here is public: run the server with ``verifier mcp``.
"""

__all__: list[str] = []
