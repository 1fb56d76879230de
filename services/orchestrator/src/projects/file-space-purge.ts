import type { NatsConnection } from "nats";
import { AppError, requestJson } from "@agent-orchestrator/shared/runtime";
import { FilesPurgeReply, subjects, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { OrchestratorConfig } from "../config.js";

export interface FileSpacePurgeDeps {
  connection: NatsConnection;
  config: Pick<OrchestratorConfig, "TOOL_TIMEOUT_MS">;
  subjectPrefix: string;
}

/** Asks the tool-runner to forget a file space whole (`project.files.purge`): a deleted project's or chat's; returns how many files it held. */
export async function purgeFileSpace(deps: FileSpacePurgeDeps, space: FileSpaceRef): Promise<number> {
  const reply = await requestJson(deps.connection, deps.subjectPrefix + subjects.files("purge"), { space }, FilesPurgeReply, {
    timeoutMs: deps.config.TOOL_TIMEOUT_MS,
  });
  if (!reply.success) throw new AppError(reply.error.code, `The ${space.kind === "project" ? "project's" : "chat's"} files could not be deleted: ${reply.error.message}`);
  return reply.files;
}
