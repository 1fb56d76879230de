import { Readable } from "node:stream";
import { addJsonEndpoint, type Logger } from "@agent-orchestrator/shared/runtime";
import { GitAdvertiseRequest, GitRpcRequest, subjects, type GitBody, type GitRpcReply } from "@agent-orchestrator/shared/wire";
import type { Service } from "nats";
import { advertise, uploadPack } from "./git-fetch.js";
import type { GitHttpDeps } from "./git-http-deps.js";
import { receivePack } from "./git-push.js";

/**
 * The tool-runner's side of git's smart HTTP protocol (docs/repositories.md "Plain git over HTTP"), for the
 * gateway, which has checked the caller's role: `project.git.advertise` (info/refs), `project.git.upload_pack`
 * (a fetch) and `project.git.receive_pack` (a push).
 */
export function addGitEndpoints(service: Service, deps: GitHttpDeps, options: { prefix: string; track: <T>(reply: Promise<T>) => Promise<T>; logger: Logger }): void {
  const { prefix, track, logger } = options;
  addJsonEndpoint(service, "git_advertise", `${prefix}${subjects.git("advertise")}`, GitAdvertiseRequest, (request) => track(answer(advertise(deps, request))), logger);
  addJsonEndpoint(service, "git_upload_pack", `${prefix}${subjects.git("upload_pack")}`, GitRpcRequest, (request) => track(answer(uploadPack(deps, request))), logger);
  addJsonEndpoint(
    service,
    "git_receive_pack",
    `${prefix}${subjects.git("receive_pack")}`,
    GitRpcRequest,
    (request) =>
      track(
        (async (): Promise<GitRpcReply> => {
          const outcome = await receivePack(deps, request);
          return { success: true, body: await deps.bodies.send(Readable.from([outcome.report])), updates: outcome.updates };
        })(),
      ),
    logger,
  );
}

async function answer(body: Promise<GitBody>): Promise<GitRpcReply> {
  return { success: true, body: await body };
}
