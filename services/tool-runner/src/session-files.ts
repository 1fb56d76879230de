import {
  AppError,
  type SessionFilesListReply,
  type SessionFilesReadReply,
  type SessionManifest,
} from "@agent-orchestrator/shared";
import type { ManifestStore } from "./manifest/manifest-store.js";
import { isServablePath, type Sandbox } from "./sandbox/index.js";
import { fitContentsToBudget } from "./tools/reply-budget.js";

/** The gateway's view of a session's files (`session.files.list` / `session.files.read`). */
export interface SessionFilesDependencies {
  sandbox: Sandbox;
  manifests: ManifestStore;
  replyBudget: () => number;
}

/**
 * The manifest of a session owned by `owner`. Another user's session and a missing one answer alike
 * (SESSION_NOT_FOUND), so ids cannot be probed.
 */
async function ownedManifest(deps: SessionFilesDependencies, sessionId: string, owner: string): Promise<SessionManifest> {
  const manifest = await deps.manifests.read(sessionId);
  if (!manifest || manifest.owner !== owner) throw new AppError("SESSION_NOT_FOUND", "Session not found");
  return manifest;
}

/**
 * The files a session wrote, from its manifest. A path the tools could not open (one an older manifest
 * recorded for a script's file) is left out of `files` and of the manifest returned, and counted in
 * `unservable_names`: every path listed can be read with `session.files.read`, and none carries a raw
 * control or bidi character to the page or terminal that shows it (docs/security.md case 142).
 */
export async function listSessionFiles(
  deps: SessionFilesDependencies,
  request: { session_id: string; owner: string },
): Promise<SessionFilesListReply> {
  const manifest = await ownedManifest(deps, request.session_id, request.owner);
  const files = manifest.files.filter((file) => isServablePath(file.path));
  return { success: true, files, manifest: { ...manifest, files }, unservable_names: manifest.files.length - files.length };
}

/**
 * One file of a session, `path` relative to its folder (or starting `{session-folder}/`). Read through the
 * same sandbox as the tools, with no bundle: nothing outside the session folder is reachable.
 */
export async function readSessionFile(
  deps: SessionFilesDependencies,
  request: { session_id: string; owner: string; path: string },
): Promise<SessionFilesReadReply> {
  await ownedManifest(deps, request.session_id, request.owner);
  if (/^[/{]/.test(request.path) && !request.path.startsWith("{session-folder}/")) {
    throw new AppError("INVALID_PATH", "Invalid path: give it relative to the session folder");
  }
  const virtualPath = request.path.startsWith("{session-folder}/") ? request.path : `{session-folder}/${request.path}`;
  const file = await deps.sandbox.read({ session_id: request.session_id }, virtualPath);
  const reply = { success: true as const, path: file.path, content: file.content, size: file.size, truncated: file.truncated };
  fitContentsToBudget(reply, [reply], deps.replyBudget());
  return reply;
}
