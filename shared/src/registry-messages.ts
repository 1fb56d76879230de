import { z } from "zod";
import { AgentDefinition, AgentSummary } from "./agent.js";
import { ErrorReply } from "./error-code.js";

export const ListAgentsRequest = z.object({
  bundle: z.string().optional(),
});
export type ListAgentsRequest = z.infer<typeof ListAgentsRequest>;

export const ListAgentsReply = z.union([
  z.object({ success: z.literal(true), agents: z.array(AgentSummary) }),
  ErrorReply,
]);
export type ListAgentsReply = z.infer<typeof ListAgentsReply>;

export const GetAgentRequest = z.object({
  agent_id: z.string().min(1).max(256),
});
export type GetAgentRequest = z.infer<typeof GetAgentRequest>;

export const GetAgentReply = z.union([z.object({ success: z.literal(true), agent: AgentDefinition }), ErrorReply]);
export type GetAgentReply = z.infer<typeof GetAgentReply>;
