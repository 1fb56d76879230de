import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import type { AttachedRepository, Repositories } from "../repository/index.js";
import type { TransitBodies } from "./transit-bodies.js";

/** The longest one git request runs on a tool-runner: below the 11 minutes its NATS user may take to answer (deploy/nats). */
export const gitServiceTimeoutMs = 10 * 60_000;

/** What serving git's smart HTTP protocol needs on a tool-runner. */
export interface GitHttpDeps {
  repositories: Repositories;
  bodies: TransitBodies;
  logger: Logger;
  /** the longest a git service may run for one request */
  timeoutMs: number;
  now: () => Date;
}

/** The project's repository; NOT_FOUND when it has none (the gateway answers 404, as for an unknown project). */
export async function requiredRepository(deps: GitHttpDeps, project: string): Promise<AttachedRepository> {
  const attached = await deps.repositories.attached(project);
  if (!attached) throw new AppError("NOT_FOUND", "This project has no git repository; its owner attaches one with PUT /api/projects/:id/repository");
  return attached;
}
