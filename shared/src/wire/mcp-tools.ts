import { z } from "zod";
import { ChatRequestBody } from "./http-api.js";
import { ActivationRequest } from "./registry-messages.js";

/**
 * Input of the MCP tool `bmad` (docs/design.md "Activation documents"): `list` the agents and their workflows, `read` one agent's
 * definition (or one workflow's menu entry), `execute` one agent or workflow: the activation document in
 * one call, with the user's request in it when given.
 */
export const BmadToolInput = z.object({
  operation: z.enum(["list", "read", "execute"]).describe("list: agents and workflows; read: one agent's definition; execute: the activation document"),
  agent: ActivationRequest.shape.agent_id.optional().describe("an agent id from `list`, e.g. `idea-coach` or `bmm/analyst`"),
  workflow: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("a workflow or skill: an installed skill's name (`bmad-prd`), or from `list` a menu trigger (`*idea-brief`), skill name or workflow path; with `agent` to pick among several agents"),
  user_context: ActivationRequest.shape.user_context.describe("what the user asked for; shown in the activation as the reason for it"),
  variables: ActivationRequest.shape.variables.describe("values for `{name}` variables such as user_name"),
});
export type BmadToolInput = z.infer<typeof BmadToolInput>;

/** Input of the MCP tool `chat`: one turn of an agent on this server's own loop and model. */
export const ChatToolInput = z.object({
  agent_id: ChatRequestBody.shape.agent_id.describe("an agent id from `bmad list`"),
  message: ChatRequestBody.shape.message.describe("what the user says to the agent"),
  session_id: ChatRequestBody.shape.session_id.describe("continue this session (from an earlier `chat` result); omit to start a new one"),
  project_id: ChatRequestBody.shape.project_id.describe("the project a new chat belongs to (its files are the project's); omit for your personal default project"),
  attachments: ChatRequestBody.shape.attachments.describe(
    "files for the agent to read: `{path}` of a file already in the chat's project (e.g. `inputs/brief.pdf`; in a project with a git repository, a file of the chat's working tree), `{path, folder: \"session\"}` of a file in a continued chat's own scratch folder, or `{name, content_base64}` of a small file, stored as `inputs/<name>` first (in a project with a git repository, in the chat's own scratch folder, not the repository)",
  ),
});
export type ChatToolInput = z.infer<typeof ChatToolInput>;
