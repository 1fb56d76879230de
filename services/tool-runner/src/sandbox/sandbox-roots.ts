import { lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { coreModuleFolder, mapOutputVariables, subjectTokenPattern } from "@agent-orchestrator/shared";
import { relativeInside } from "./containment.js";
import { assertPathShape } from "./path-shape.js";
import type { LayoutCache } from "./layout-cache.js";
import type { RootRealPaths } from "./root-real-paths.js";
import type { LayoutRoot, ProjectLayout } from "./project-layout.js";
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
  /** relative to the project root, e.g. `_bmad/bmm`, `.bmad-core`, `.claude/skills/bmad-agent-analyst` or `bmad/custom/bundles/idea-studio` */
  bundle_path?: string | undefined;
}

/** One root the current operation may use: its lexical path (from the project root) and its realpath. */
export interface RootEntry {
  name: RootName | LayoutRoot["kind"];
  lexical: string;
  real: string;
}

/** The roots of one call. */
export interface ContextRoots {
  lexical: LexicalRoots;
  /** where reads may land: bundle, core, session, plus every BMAD tree, skill folder and knowledge folder for an installed bundle */
  readable: RootEntry[];
  session: RootEntry;
}

/**
 * Pins `{project-root}` and the output root: realpath once (docs/security.md "The sandbox algorithm", step 2) and remember dev/ino, so a
 * root later replaced by a symlink is detected (docs/security.md case 29). Creates the output root if missing: it is
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
  const seen = await Promise.all(pinned.identities.map((identity) => lstat(identity.path).catch(() => undefined)));
  for (const [index, identity] of pinned.identities.entries()) {
    const stats = seen[index];
    if (!stats || !stats.isDirectory() || stats.dev !== identity.dev || stats.ino !== identity.ino) {
      throw accessDenied("PATH_CHANGED", { reason: "a sandbox root changed since start-up", root: identity.path });
    }
  }
}

/**
 * The roots of one call, after checking that the pinned roots are still in place. `bundle_path` must lie in a
 * BMAD tree of the project (`bmad/`, `_bmad/`, or a 4.x `.bmad-*` folder, which may itself be the bundle) or
 * be one skill folder of a tool folder (`.claude/skills/<name>`), lexically and after symlinks
 * (docs/bmad-releases.md). `{core-root}` is the `core` module of the bundle's tree. An installed bundle (not
 * under `<tree>/custom/`) may also read every BMAD tree, skill folder and knowledge folder, because its
 * instructions reference other modules' files and skills (docs/security.md "What the model may touch"); a custom bundle reads only its own
 * folder, core and the session. The layout comes from `layouts`, re-detected once when the bundle is unknown;
 * the realpaths of the bundle and core from `realPaths`, kept as long as the layout.
 */
export async function rootsForContext(pinned: PinnedRoots, layouts: LayoutCache, realPaths: RootRealPaths, context: SandboxContext): Promise<ContextRoots> {
  // the filesystem checks of a call are independent: they run at once, and their verdicts are taken in the
  // order the checks are listed (a moved root first), so a call waits for one round of them, not five
  const verified = started(verifyPinnedRoots(pinned));
  try {
    const roots = await resolveRoots(pinned, layouts, realPaths, context);
    await verified;
    return roots;
  } catch (error) {
    await verified;
    throw error;
  }
}

async function resolveRoots(pinned: PinnedRoots, layouts: LayoutCache, realPaths: RootRealPaths, context: SandboxContext): Promise<ContextRoots> {
  const project = pinned.projectRoot;
  let layout = await layouts.current();
  const sessionPath = sessionFolderPath(pinned, context.session_id);
  const sessionReal = started(sessionRealPath(sessionPath));
  if (context.bundle_path === undefined) {
    const session: RootEntry = { name: "session", lexical: sessionPath, real: await sessionReal };
    return { lexical: { project, core: coreFolder(project, layout, undefined), session: sessionPath }, readable: [session], session };
  }

  assertPathShape(context.bundle_path);
  const bundle = path.resolve(project, context.bundle_path);
  if (path.isAbsolute(context.bundle_path) || relativeInside(project, bundle) === undefined) {
    throw accessDenied("PATH_OUTSIDE_ROOT", { reason: "bundle_path outside the project", bundle_path: context.bundle_path });
  }
  let home = bundleHome(layout, bundle);
  if (!home) {
    layout = await layouts.refresh();
    home = bundleHome(layout, bundle);
  }
  if (!home) {
    throw accessDenied("PATH_OUTSIDE_ROOT", { reason: "bundle_path outside the BMAD trees and skill folders", bundle_path: context.bundle_path });
  }
  const tree = home.root.kind === "tree" ? home.root : undefined;
  const core = coreFolder(project, layout, tree);
  const bundleRealPath = started(realPaths.of(bundle));
  const coreRealPath = started(realPaths.of(core));
  const session: RootEntry = { name: "session", lexical: sessionPath, real: await sessionReal };
  const bundleReal = await bundleRealPath;
  if (relativeInside(home.root.real, bundleReal) === undefined) {
    throw accessDenied("SYMLINK_ESCAPE", { reason: "bundle resolves outside its BMAD tree or skill folder", bundle: bundleReal });
  }
  const lexical: LexicalRoots = {
    project,
    bundle,
    core,
    session: sessionPath,
    outputs: outputFolders(layout, home, sessionPath),
    bundleIsSkill: home.root.kind === "skills",
  };
  const readable: RootEntry[] = [session, { name: "bundle", lexical: bundle, real: bundleReal }, { name: "core", lexical: core, real: await coreRealPath }];
  const custom = tree !== undefined && home.relative.split(path.sep)[0] === "custom";
  if (!custom) readable.push(...layout.roots.map((root) => ({ name: root.kind, lexical: root.lexical, real: root.real })));
  return { lexical, readable, session };
}

/** A check started ahead of the point where its verdict is taken; a verdict never taken is not an unhandled rejection. */
function started<T>(check: Promise<T>): Promise<T> {
  check.catch(() => undefined);
  return check;
}

/** Where a bundle lives: inside a BMAD tree (a `.bmad-*` tree may be the bundle itself), or one skill folder. */
function bundleHome(layout: ProjectLayout, bundle: string): { root: LayoutRoot; relative: string } | undefined {
  for (const root of layout.roots) {
    const relative = relativeInside(root.lexical, bundle);
    if (relative === undefined) continue;
    if (root.kind === "tree" && (relative !== "" || isV4Tree(root))) return { root, relative };
    if (root.kind === "skills" && relative !== "" && !relative.includes(path.sep)) return { root, relative };
  }
  return undefined;
}

// trees in the order a skill or a session-only call takes `{core-root}` from: the newest layout first
const treePreference = ["_bmad", "bmad", ".bmad-core"];

/** `{core-root}`: `<tree>/core`, or `.bmad-core` itself for 4.x trees (docs/bmad-releases.md). */
function coreFolder(project: string, layout: ProjectLayout, tree: LayoutRoot | undefined): string {
  const chosen = tree ?? preferredTree(layout);
  if (!chosen) return path.join(project, "_bmad", "core");
  return path.join(project, coreModuleFolder(path.basename(chosen.lexical)));
}

function preferredTree(layout: ProjectLayout): LayoutRoot | undefined {
  const trees = layout.roots.filter((root) => root.kind === "tree");
  for (const name of treePreference) {
    const found = trees.find((tree) => path.basename(tree.lexical) === name);
    if (found) return found;
  }
  return trees[0];
}

function isV4Tree(root: LayoutRoot): boolean {
  return path.basename(root.lexical).startsWith(".bmad-");
}

/**
 * `{planning_artifacts}` and the other output variables → folders in the session, from the module config of
 * the bundle's module (a skill takes its tree's `bmm`, or any module naming them), mapped with the shared
 * `mapOutputVariables` so `{project-root}/_bmad-output/planning-artifacts` becomes `<session>/planning-artifacts`.
 */
function outputFolders(layout: ProjectLayout, home: { root: LayoutRoot; relative: string }, sessionPath: string): Record<string, string> {
  const tree = home.root.kind === "tree" ? home.root : preferredTree(layout);
  if (!tree) return {};
  const module = home.root.kind === "tree" ? home.relative.split(path.sep)[0] : undefined;
  const modules = layout.outputs.filter((outputs) => outputs.tree === tree.real);
  const chosen =
    modules.find((outputs) => outputs.module === module && Object.keys(outputs.variables).some((name) => name !== "output_folder")) ??
    modules.find((outputs) => outputs.module === "bmm") ??
    modules.find((outputs) => Object.keys(outputs.variables).some((name) => name !== "output_folder"));
  if (!chosen) return {};
  const mapped = mapOutputVariables(chosen.variables, sessionPath);
  const folders: Record<string, string> = {};
  for (const [name, folder] of Object.entries(mapped)) {
    if (name !== "output_folder" && relativeInside(sessionPath, folder) !== undefined) folders[name] = folder;
  }
  return folders;
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
