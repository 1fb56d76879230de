import { lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { subjectTokenPattern } from "@agent-orchestrator/shared";
import { relativeInside } from "./containment.js";
import { assertPathShape } from "./path-shape.js";
import { accessDenied, errnoCode, sandboxError } from "./sandbox-error.js";
import type { LexicalRoots, RootName } from "./virtual-path.js";

/** The two configured roots, resolved once at start-up, with their identity to detect a later swap. */
export interface PinnedRoots {
  readonly projectRoot: string;
  readonly outputRoot: string;
  readonly identities: ReadonlyArray<{ path: string; dev: number; ino: number }>;
}

/**
 * Who is calling: the session (for `{session-folder}`) and the agent's bundle (for `{bundle-root}`).
 * Without a bundle only the session folder is readable (the gateway showing a session's files).
 */
export interface SandboxContext {
  session_id: string;
  /** relative to the project root, e.g. `bmad/bmm` or `bmad/custom/bundles/idea-studio` */
  bundle_path?: string | undefined;
}

/** One root the current operation may use: its lexical path (from the project root) and its realpath. */
export interface RootEntry {
  name: RootName | "bmad";
  lexical: string;
  real: string;
}

/** The roots of one call. */
export interface ContextRoots {
  lexical: LexicalRoots;
  /** where reads may land: bundle, core, session, plus the whole `bmad/` tree for an installed module */
  readable: RootEntry[];
  session: RootEntry;
}

/**
 * Pins `{project-root}` and the output root: realpath once (RELIABILITY step 2) and remember dev/ino, so a
 * root later replaced by a symlink is detected (attack case 29). Creates the output root if missing: it is
 * operator configuration, not model input.
 */
export async function pinRoots(options: { projectRoot: string; outputRoot: string }): Promise<PinnedRoots> {
  const projectRoot = await realpath(options.projectRoot);
  await mkdir(options.outputRoot, { recursive: true });
  const outputRoot = await realpath(options.outputRoot);
  const identities = [];
  for (const root of [projectRoot, outputRoot]) {
    const stats = await lstat(root);
    if (!stats.isDirectory()) throw new Error(`Sandbox root is not a directory: ${root}`);
    identities.push({ path: root, dev: stats.dev, ino: stats.ino });
  }
  return { projectRoot, outputRoot, identities };
}

/** Fails closed (PATH_CHANGED) when a pinned root is no longer the directory it was at start-up. */
export async function verifyPinnedRoots(pinned: PinnedRoots): Promise<void> {
  for (const identity of pinned.identities) {
    const stats = await lstat(identity.path).catch(() => undefined);
    if (!stats || !stats.isDirectory() || stats.dev !== identity.dev || stats.ino !== identity.ino) {
      throw accessDenied("PATH_CHANGED", { reason: "a sandbox root changed since start-up", root: identity.path });
    }
  }
}

/**
 * The roots of one call, after checking that the pinned roots are still in place. `bundle_path` must resolve strictly inside `<project>/bmad`, lexically and after
 * symlinks. A bundle that is an installed module (`bmad/<module>`, not under `bmad/custom/`) may also read
 * the whole `bmad/` tree, because its agents reference other modules' files (DESIGN §5).
 */
export async function rootsForContext(pinned: PinnedRoots, context: SandboxContext): Promise<ContextRoots> {
  await verifyPinnedRoots(pinned);
  const project = pinned.projectRoot;
  const bmad = path.join(project, "bmad");
  const lexical: LexicalRoots = {
    project,
    core: path.join(bmad, "core"),
    session: sessionFolderPath(pinned, context.session_id),
  };
  const session: RootEntry = { name: "session", lexical: lexical.session, real: await sessionRealPath(lexical.session) };
  if (context.bundle_path === undefined) return { lexical, readable: [session], session };

  assertPathShape(context.bundle_path);
  const bundle = path.resolve(project, context.bundle_path);
  const bundleInBmad = relativeInside(bmad, bundle);
  if (path.isAbsolute(context.bundle_path) || !bundleInBmad) {
    throw accessDenied("PATH_OUTSIDE_ROOT", { reason: "bundle_path outside bmad/", bundle_path: context.bundle_path });
  }
  lexical.bundle = bundle;
  const bmadReal = await realpathOr(bmad);
  const bundleReal = await realpathOr(bundle);
  if (!relativeInside(bmadReal, bundleReal)) {
    throw accessDenied("SYMLINK_ESCAPE", { reason: "bundle resolves outside bmad/", bundle: bundleReal });
  }
  const readable: RootEntry[] = [
    session,
    { name: "bundle", lexical: bundle, real: bundleReal },
    { name: "core", lexical: lexical.core, real: await realpathOr(lexical.core) },
  ];
  const segments = bundleInBmad.split(path.sep);
  if (segments.length === 1 && segments[0] !== "custom") readable.push({ name: "bmad", lexical: bmad, real: bmadReal });
  return { lexical, readable, session };
}

/** `<OUTPUT_ROOT>/<session_id>`; the id must be a plain token, so it can never be `..` or contain `/`. */
export function sessionFolderPath(pinned: PinnedRoots, sessionId: string): string {
  if (!subjectTokenPattern.test(sessionId)) throw sandboxError("BAD_REQUEST", "Invalid session id");
  return path.join(pinned.outputRoot, sessionId);
}

/** The most specific root that contains `candidate` (by lexical or real path), with the relative rest. */
export function matchRoot(
  roots: readonly RootEntry[],
  candidate: string,
  by: "lexical" | "real",
): { root: RootEntry; relative: string } | undefined {
  let best: { root: RootEntry; relative: string } | undefined;
  for (const root of roots) {
    const relative = relativeInside(root[by], candidate);
    if (relative !== undefined && (!best || root[by].length > best.root[by].length)) best = { root, relative };
  }
  return best;
}

// The session folder is created by the system and must be a real directory: a symlink there would
// redirect every write of the session.
async function sessionRealPath(session: string): Promise<string> {
  const stats = await lstat(session).catch((error: unknown) => {
    if (errnoCode(error) === "ENOENT") return undefined;
    throw error;
  });
  if (stats && !stats.isDirectory()) {
    throw accessDenied("SYMLINK_ESCAPE", { reason: "session folder is not a plain directory", session });
  }
  return session;
}

async function realpathOr(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return target;
    throw error;
  }
}
