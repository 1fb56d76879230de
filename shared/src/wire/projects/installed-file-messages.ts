import { z } from "zod";
import { ErrorReply } from "../error-code.js";

/** Most installed files one `project.files.installed_list` reply names: far below any max_payload at 1 KiB a path. */
const maxInstalledFilesPerPage = 200;

/**
 * One installed BMAD file (BMAD_ROOT's BMAD trees and skill folders, shared by every project): its path from
 * BMAD_ROOT as `{project-root}` shows it (`_bmad/bmm/config.yaml`, `.claude/skills/bmad-prd/SKILL.md`).
 */
export const InstalledFileListing = z.object({ path: z.string(), size: z.number().int().nonnegative(), updated_at: z.string() });
export type InstalledFileListing = z.infer<typeof InstalledFileListing>;

/**
 * gateway → tool-runner on `project.files.installed_list`: the installed files the project view shows read-only,
 * by path as strings compare, those after `after`, at most `limit` (docs/openai-api.md "Resources").
 */
export const InstalledFilesListRequest = z.object({ after: z.string().max(1024).optional(), limit: z.number().int().min(1).max(maxInstalledFilesPerPage) });
export const InstalledFilesListReply = z.union([
  z.object({ success: z.literal(true), files: z.array(InstalledFileListing), /** files come after the last one named */ more: z.boolean() }),
  ErrorReply,
]);
export type InstalledFilesListReply = z.infer<typeof InstalledFilesListReply>;

/** gateway → tool-runner on `project.files.installed_read`: one installed file as text, with the checks of `read_file`. */
export const InstalledFileReadRequest = z.object({ path: z.string().min(1).max(1024) });
export const InstalledFileReadReply = z.union([
  z.object({ success: z.literal(true), path: z.string(), size: z.number().int().nonnegative(), content: z.string(), truncated: z.boolean() }),
  ErrorReply,
]);
export type InstalledFileReadReply = z.infer<typeof InstalledFileReadReply>;
