import { Readable } from "node:stream";
import type { GitBody, GitRpcRequest } from "@agent-orchestrator/shared/wire";
import { GitFailed } from "../git/index.js";
import { requiredRepository, type GitHttpDeps } from "./git-http-deps.js";
import { gitServiceOutput, startGitService } from "./git-service.js";
import { flushPkt, pktLine } from "./pkt-line.js";
import { serveRepository } from "./served-repository.js";

/** The largest advertisement kept (refs and capabilities: at most REPOSITORY_MAX_REFS refs). */
const advertisementMaxBytes = 16 * 1024 * 1024;

/** Whether a `Git-Protocol` header asks for protocol version 2 (only upload-pack speaks it). */
export function asksVersion2(protocol: string | undefined): boolean {
  return protocol !== undefined && protocol.split(":").includes("version=2");
}

/**
 * The answer to `GET /git/<id>.git/info/refs?service=…` (gitprotocol-http(5) "Smart Clients"): the service's
 * advertisement of the repository's refs and capabilities as git makes it, after the `# service=` line that
 * protocol versions 0 and 1 start with (version 2 has none, as git-http-backend does).
 */
export async function advertise(deps: GitHttpDeps, request: { project_id: string; service: GitRpcRequest["service"]; protocol?: string | undefined }): Promise<GitBody> {
  const attached = await requiredRepository(deps, request.project_id);
  const served = await serveRepository(attached);
  const service = request.service === "git-upload-pack" ? "upload-pack" : "receive-pack";
  // a push speaks versions 0 and 1 only
  const protocol = service === "upload-pack" ? request.protocol : undefined;
  try {
    const { stdout: advertisement } = await gitServiceOutput({ service, gitDir: served.gitDir, advertise: true, ...(protocol === undefined ? {} : { protocol }), timeoutMs: deps.timeoutMs }, advertisementMaxBytes);
    const header = asksVersion2(protocol) ? [] : [pktLine(`# service=${request.service}\n`), flushPkt];
    return await deps.bodies.send(Readable.from([Buffer.concat([...header, advertisement])]));
  } finally {
    await served.remove();
  }
}

/**
 * A fetch's `POST /git/<id>.git/git-upload-pack`: `git upload-pack --stateless-rpc` on the repository of the
 * moment, its output (a clone's pack) streamed to the gateway as it is made. A request git refuses is answered
 * with what git printed (its `ERR` line, which the client shows), as git-http-backend does.
 */
export async function uploadPack(deps: GitHttpDeps, request: GitRpcRequest): Promise<GitBody> {
  const attached = await requiredRepository(deps, request.project_id);
  const received = await deps.bodies.receive(request.body);
  const served = await serveRepository(attached).catch(async (error: unknown) => {
    await received.discard();
    throw error;
  });
  try {
    const running = startGitService({ service: "upload-pack", gitDir: served.gitDir, input: received.from(0), ...(request.protocol === undefined ? {} : { protocol: request.protocol }), timeoutMs: deps.timeoutMs });
    const body = await deps.bodies.send(running.stdout).catch(async (error: unknown) => {
      // the body could not be sent (the store failed, the wait ended): git and pack-objects stop now, not at the timeout
      running.kill();
      await running.finished.catch(() => undefined);
      throw error;
    });
    await running.finished.catch((error: unknown) => {
      deps.logger.warn({ project_id: request.project_id, stderr: error instanceof GitFailed ? error.stderr.slice(0, 500) : undefined }, "git upload-pack ended with an error");
    });
    return body;
  } finally {
    await Promise.all([served.remove(), received.discard()]);
  }
}
