/**
 * A git remote over plain HTTP for tests of cloning and pushing (docs/repositories.md): git's own `git http-backend`
 * run as CGI by a node:http server on a free local port, serving the repositories in `root`, and asking for HTTP
 * basic authentication when `credential` is given (a request that passes it may push, as `REMOTE_USER`). Every
 * Authorization header it receives is kept, so a test can check what the clone or the push sent.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface GitHttpRemote {
  /** `http://127.0.0.1:<port>/` : a repository `<root>/app.git` is `${url}app.git` */
  url: string;
  /** the Authorization headers of every request */
  authorizations: string[];
  close(): Promise<void>;
}

export async function startGitHttpRemote(root: string, credential?: { username: string; password: string }): Promise<GitHttpRemote> {
  const authorizations: string[] = [];
  const expected = credential === undefined ? undefined : `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString("base64")}`;
  const server: Server = createServer((request, response) => {
    const authorization = request.headers.authorization ?? "";
    authorizations.push(authorization);
    if (expected !== undefined && authorization !== expected) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const url = new URL(request.url ?? "/", "http://localhost");
    const backend = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        GIT_CONFIG_NOSYSTEM: "1",
        HOME: root,
        REQUEST_METHOD: request.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        ...(request.headers["content-length"] === undefined ? {} : { CONTENT_LENGTH: request.headers["content-length"] }),
        ...(request.headers["content-encoding"] === undefined ? {} : { HTTP_CONTENT_ENCODING: request.headers["content-encoding"] }),
        ...(expected === undefined ? {} : { REMOTE_USER: credential?.username ?? "" }),
        REMOTE_ADDR: "127.0.0.1",
      },
    });
    request.pipe(backend.stdin);
    const chunks: Buffer[] = [];
    backend.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    backend.on("close", () => {
      const output = Buffer.concat(chunks);
      const end = output.indexOf("\r\n\r\n");
      const head = output.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === "status") status = Number(value.split(" ")[0]);
        else if (name !== "") headers[name] = value;
      }
      response.writeHead(status, headers).end(output.subarray(end + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
