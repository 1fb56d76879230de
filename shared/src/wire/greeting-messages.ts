import { z } from "zod";
import { ChatRequestBody } from "./http-api.js";
import { ErrorReply } from "./error-code.js";
import { projectIdSchema, userNameSchema } from "./projects/project-record.js";
import { CallerName } from "./settings/settings-messages.js";
import { subjectTokenPattern } from "./subjects.js";

/** One entry of the menu an agent shows in its greeting, numbered as the user may choose it. */
export const GreetingMenuItem = z.object({
  number: z.number().int().positive(),
  /** what the user may type instead of the number: `*help`, `BP`, `[CB]`'s code */
  trigger: z.string(),
  description: z.string(),
});
export type GreetingMenuItem = z.infer<typeof GreetingMenuItem>;

/**
 * The greeting BMAD's activation asks an agent to give when it is chosen (the user greeted by name, the agent
 * introduced, its numbered menu), built by the system from the agent's start without a model call
 * (services/orchestrator/src/sessions/greeting.ts). The text is English; `language` is the install's
 * `communication_language`, which the model speaks from the next turn on.
 */
export const Greeting = z.object({
  text: z.string(),
  menu: z.array(GreetingMenuItem),
  /** the configured `user_name`; absent when the install's config names nobody */
  user_name: z.string().optional(),
  /** the configured `communication_language` (BMAD's default, English, when the config names none) */
  language: z.string(),
});
export type Greeting = z.infer<typeof Greeting>;

/**
 * gateway → orchestrator on `agent.session.start` (a new chat that opens with the agent's greeting) and
 * `agent.session.greeting` (the greeting alone, nothing stored). `project_id` absent: the caller's default
 * project. Starting a chat needs the owner or an editor of the project; a preview, any member.
 */
export const GreetingRequest = z.object({
  user: userNameSchema,
  agent_id: ChatRequestBody.shape.agent_id,
  project_id: projectIdSchema.optional(),
  /** the name the gateway knows the caller by (docs/settings.md) */
  caller_name: CallerName.optional(),
  /** a new chat's branch (`POST /api/sessions`; docs/repositories.md "Branches and working trees") */
  branch: ChatRequestBody.shape.branch,
});
export type GreetingRequest = z.infer<typeof GreetingRequest>;

export const GreetingReply = z.union([z.object({ success: z.literal(true), project_id: z.string(), greeting: Greeting }), ErrorReply]);
export type GreetingReply = z.infer<typeof GreetingReply>;

export const SessionStartReply = z.union([
  z.object({ success: z.literal(true), session_id: z.string().regex(subjectTokenPattern), project_id: z.string(), greeting: Greeting }),
  ErrorReply,
]);
export type SessionStartReply = z.infer<typeof SessionStartReply>;

/**
 * `POST /api/sessions`: a new chat with `agent_id`, in `project_id` (absent or `default`: the caller's default
 * project), on `branch` of its repository (absent: its own).
 */
export const SessionStartBody = z.object({ agent_id: ChatRequestBody.shape.agent_id, project_id: ChatRequestBody.shape.project_id, branch: ChatRequestBody.shape.branch }).strict();
export type SessionStartBody = z.infer<typeof SessionStartBody>;

/** `GET /api/agents/:id/greeting?project_id=`: the project whose install and facts the preview reads (absent or `default`: the caller's). */
export const GreetingQuery = z.object({ project_id: ChatRequestBody.shape.project_id }).strict();
export type GreetingQuery = z.infer<typeof GreetingQuery>;
