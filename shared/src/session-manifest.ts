import { z } from "zod";
import { ErrorReply } from "./error-code.js";
import { SessionStatus } from "./session-record.js";
import { subjectTokenPattern } from "./subjects.js";

/** One file a session wrote, as recorded in its manifest. Paths are virtual (`{session-folder}/…`). */
export const ManifestFile = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  written_at: z.string(),
});
export type ManifestFile = z.infer<typeof ManifestFile>;

/** One `run_script` call of a session: the command as the model wrote it (virtual paths) and how it ended. */
export const ManifestScriptRun = z.object({
  command: z.string(),
  /** null when the run was stopped at its time limit */
  exit_code: z.number().int().nullable(),
  at: z.string(),
});
export type ManifestScriptRun = z.infer<typeof ManifestScriptRun>;

/** `{OUTPUT_ROOT}/{session-id}/manifest.json`, kept by the system (docs/design.md "Sessions"). */
export const SessionManifest = z.object({
  id: z.string(),
  agent: z.string(),
  bundle: z.string(),
  owner: z.string(),
  status: SessionStatus,
  created_at: z.string(),
  updated_at: z.string(),
  workflows: z.array(z.object({ path: z.string(), started_at: z.string() })),
  files: z.array(ManifestFile),
  /** absent in manifests written before scripts existed */
  scripts: z.array(ManifestScriptRun).optional(),
});
export type SessionManifest = z.infer<typeof SessionManifest>;

/**
 * orchestrator → tool-runner on `session.manifest.update`: create the session folder and manifest if
 * missing, then set the given fields. Only the tool-runner writes to the output volume.
 */
export const SessionManifestUpdate = z.object({
  session_id: z.string().regex(subjectTokenPattern),
  agent: z.string().min(1),
  bundle: z.string().min(1),
  owner: z.string().min(1),
  status: SessionStatus,
});
export type SessionManifestUpdate = z.infer<typeof SessionManifestUpdate>;

export const SessionManifestReply = z.union([z.object({ success: z.literal(true), manifest: SessionManifest }), ErrorReply]);
export type SessionManifestReply = z.infer<typeof SessionManifestReply>;
