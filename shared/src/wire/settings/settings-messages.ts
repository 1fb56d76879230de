import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { projectIdSchema, userNameSchema } from "../projects/project-record.js";
import { AnswerValue, MemberSettings, ProjectSettings } from "./bmad-settings.js";

/**
 * The name the gateway knows a caller by, for `user_name`'s default: the display name their sign-in gave, else their
 * user id. A gateway that signs nobody in (one local user) sends none, and the install's answer stays.
 */
export const CallerName = AnswerValue;

/** gateway → orchestrator on `agent.project.settings` (any member) and `agent.project.settings_put` (the owner). */
export const ProjectSettingsRequest = z.object({ user: userNameSchema, project_id: projectIdSchema });
export const ProjectSettingsPutRequest = z.object({ user: userNameSchema, project_id: projectIdSchema, settings: ProjectSettings });

/** gateway → orchestrator on `agent.project.my_settings` and `agent.project.my_settings_put`: the caller's own. */
export const MemberSettingsRequest = z.object({ user: userNameSchema, caller_name: CallerName.optional() });
export const MemberSettingsPutRequest = z.object({ user: userNameSchema, caller_name: CallerName.optional(), settings: MemberSettings });

/**
 * A settings document as stored, and the values its unset answers take (`project_name`: the project's name;
 * `user_name`: the caller's name), so a page can show them.
 */
export const ProjectSettingsReply = z.union([
  z.object({ success: z.literal(true), project_id: z.string(), settings: ProjectSettings, defaults: z.record(z.string(), z.string()) }),
  ErrorReply,
]);
export type ProjectSettingsReply = z.infer<typeof ProjectSettingsReply>;
export const MemberSettingsReply = z.union([
  z.object({ success: z.literal(true), settings: MemberSettings, defaults: z.record(z.string(), z.string()) }),
  ErrorReply,
]);
export type MemberSettingsReply = z.infer<typeof MemberSettingsReply>;
