import { z } from "zod";
import { subjectTokenPattern } from "./subjects.js";

/** Limits of one user message; the gateway and the orchestrator check the same numbers. */
export const maxUserMessageChars = 100_000;

/**
 * gateway → orchestrator through the `RUN_REQUESTS` work queue: run one turn of a chat. Refusals
 * (unknown agent, someone else's session, …) come back as the turn's `error` event.
 */
export const RunStartRequest = z.object({
  run_id: z.string().regex(subjectTokenPattern),
  session_id: z.string().regex(subjectTokenPattern),
  /** true when the gateway made the session id for this chat; false to continue an existing session */
  new_session: z.boolean(),
  agent_id: z.string().min(1).max(256),
  message: z.string().min(1).max(maxUserMessageChars),
  /** the user the gateway authenticated; sessions are only visible to their owner */
  owner: z.string().min(1).max(128),
  /** epoch ms after which nobody waits for this turn any more: an orchestrator drops it unstarted */
  expires_at: z.number().int().positive(),
});
export type RunStartRequest = z.infer<typeof RunStartRequest>;
