import { z } from "zod";
import { ErrorBody } from "./error-code.js";
import { ChatBranchName } from "./projects/ref-name.js";
import { SettingsLayers } from "./settings/bmad-settings.js";
import { CallerName } from "./settings/settings-messages.js";
import { subjectTokenPattern } from "./subjects.js";

/** What the tool-runner needs to resolve `{bundle-root}`, `{project-root}` and `{session-folder}` for one call. */
export const ToolContext = z.object({
  session_id: z.string().regex(subjectTokenPattern),
  /** The agent's bundle folder relative to BMAD_ROOT, as the registry reported it. */
  bundle_path: z.string().min(1).max(1024),
  /** The project the chat belongs to: `{project-root}`'s own files are this project's (docs/projects.md). */
  project_id: z.string().regex(subjectTokenPattern),
  /** The user whose turn calls the tool, and the chat's agent: the author of what the call writes. */
  user: z.string().min(1).max(128),
  agent_id: z.string().min(1).max(512),
  /** Set on the calls of the agent's start, which the system makes: the skill they load is not a workflow the user ran. */
  agent_start: z.boolean().optional(),
  /**
   * BMAD's settings of the chat's project and of its member (docs/settings.md), merged over the install's answers by
   * the tools that read BMAD's config (`load_skill`, `preload_workflow`, `run_script`); the others are sent none.
   */
  settings: SettingsLayers.optional(),
  /**
   * The branch a person started the chat on (docs/repositories.md "Branches and working trees"); absent: the chat's
   * own, `chat/<session_id>`. Only a project with a git repository has branches.
   */
  branch: ChatBranchName.optional(),
  /** The name the member's sign-in gave (else their user id is used): the author of the model's commits (docs/repositories.md "Commits by the model"). */
  author_name: CallerName.optional(),
  /** The project lets its commands use the network (`repository.network` of its settings); `run_command` runs without it otherwise. */
  network: z.boolean().optional(),
});
export type ToolContext = z.infer<typeof ToolContext>;

/** The body of a request on `tool.<name>`; `arguments` is validated by the tool's own schema. */
export const ToolCallRequest = z.object({
  /** The model's tool-call id plus the run id: the idempotency key of the call. */
  call_id: z.string().min(1).max(256),
  context: ToolContext,
  arguments: z.unknown(),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

/**
 * A tool result: what the model sees (serialised as JSON). Paths inside are virtual. A failure may carry more
 * than its error: a script that exited non-zero still returns its output (`run_script`).
 */
export const ToolResult = z.union([
  z.looseObject({ success: z.literal(true) }),
  z.looseObject({ success: z.literal(false), error: ErrorBody }),
]);
export type ToolResult = z.infer<typeof ToolResult>;
