import { z } from "zod";
import { AgentSummary, AgentDefinition } from "./agent.js";
import { maxUserMessageChars } from "./run-messages.js";
import { subjectTokenPattern } from "./subjects.js";
import { Usage } from "./usage.js";

/** POST /api/chat body. */
export const ChatRequestBody = z
  .object({
    agent_id: z.string().min(1).max(256),
    message: z.string().min(1).max(maxUserMessageChars),
    session_id: z.string().regex(subjectTokenPattern).optional(),
  })
  .strict();
export type ChatRequestBody = z.infer<typeof ChatRequestBody>;

/** POST /api/chat JSON reply. */
export const ChatResponseBody = z.object({
  success: z.literal(true),
  session_id: z.string(),
  response: z.string(),
  iterations: z.number().int(),
  usage: Usage,
});
export type ChatResponseBody = z.infer<typeof ChatResponseBody>;

export const AgentsResponseBody = z.object({ success: z.literal(true), agents: z.array(AgentSummary) });
export const AgentResponseBody = z.object({ success: z.literal(true), agent: AgentDefinition });
