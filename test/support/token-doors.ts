/**
 * What a bearer token gets at each door of a gateway (docs/tokens.md): `/api`, `/v1`, `/mcp` (a JSON-RPC ping)
 * and the `/ws` upgrade.
 */
import WebSocket from "ws";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The status of one request of each API a token may call: /api, /v1 and /mcp. */
export async function doorStatuses(base: string, token: string): Promise<{ api: number; v1: number; mcp: number }> {
  const api = await fetch(`${base}/api/projects`, { headers: bearer(token) });
  const v1 = await fetch(`${base}/v1/models`, { headers: bearer(token) });
  const mcp = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  for (const response of [api, v1, mcp]) await response.body?.cancel();
  return { api: api.status, v1: v1.status, mcp: mcp.status };
}

/** The HTTP status of a WebSocket upgrade to /ws with the token (101: signed in). */
export function upgradeStatus(base: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace("http", "ws")}/ws`, { headers: { origin: base, ...bearer(token) } });
    socket.once("upgrade", (response) => {
      resolve(response.statusCode ?? 0);
      socket.close();
    });
    socket.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    socket.once("error", reject);
  });
}
