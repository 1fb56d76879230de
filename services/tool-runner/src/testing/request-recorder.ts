import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A local HTTP server that answers every request and remembers its path: a hostile document's lure. */
export interface RequestRecorder {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** the paths requested so far */
  requests: string[];
  close(): Promise<void>;
}

export async function startRequestRecorder(): Promise<RequestRecorder> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? "");
    response.end("recorded");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
