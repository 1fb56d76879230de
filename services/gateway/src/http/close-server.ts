import type { Server } from "node:http";

/**
 * Stops taking connections and settles once every open one has ended. A response still going when the server
 * closes (an SSE stream on its way to `done`) leaves its connection idle, kept alive for the client, once it ends;
 * `server.close()` alone would wait for that connection until HTTP_KEEP_ALIVE_TIMEOUT_MS (65 s), past the gateway's
 * stop deadline. So idle connections are closed as they appear, not only those idle at the call.
 */
export function closeServer(server: Server, everyMs = 100): Promise<void> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), everyMs);
    server.close(() => {
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}
