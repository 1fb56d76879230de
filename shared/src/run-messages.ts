import { z } from "zod";
import { ErrorReply } from "./error-code.js";
import { subjectTokenPattern } from "./subjects.js";

/** Limits of one user message; the gateway and the orchestrator check the same numbers. */
export const maxUserMessageChars = 100_000;

/** gateway → orchestrator on `agent.run.start`: run one turn of a chat. */
export const RunStartRequest = z.object({
  run_id: z.string().regex(subjectTokenPattern),
  session_id: z.string().regex(subjectTokenPattern),
  /** true when the gateway made the session id for this chat; false to continue an existing session */
  new_session: z.boolean(),
  agent_id: z.string().min(1).max(256),
  message: z.string().min(1).max(maxUserMessageChars),
  /** the user the gateway authenticated; sessions are only visible to their owner */
  owner: z.string().min(1).max(128),
});
export type RunStartRequest = z.infer<typeof RunStartRequest>;

/** The orchestrator accepts (the turn's events follow on `agent.run.events.<session>`) or refuses. */
export const RunStartReply = z.union([
  z.object({ success: z.literal(true), session_id: z.string(), run_id: z.string() }),
  ErrorReply,
]);
export type RunStartReply = z.infer<typeof RunStartReply>;
