import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { coreModuleFolder } from "@agent-orchestrator/shared/bmad";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import { subjectTokenPattern } from "@agent-orchestrator/shared/wire";
import { assertPathShape } from "../paths/path-shape.js";
import type { LayoutCache } from "./layout-cache.js";
import type { RootRealPaths } from "./root-real-paths.js";
import type { LayoutRoot, ProjectLayout } from "./project-layout.js";
import { projectOutputFolders } from "./output-folders.js";
import { accessDenied, sandboxError } from "../paths/sandbox-error.js";
import type { LexicalRoots, RootName } from "./virtual-path.js";

/** The configured project root (BMAD_ROOT), resolved once at start-up, with its identity to detect a later swap. */
export interface PinnedRoots {
  readonly projectRoot: string;
  readonly identities: ReadonlyArray<{ path: string; dev: number; ino: number }>;
}

/**
 * Who is calling: the chat (for `{session-folder}`), its project (for `{project-root}`'s own files) and the
 * agent's bundle (for `{bundle-root}`).
 */
export interface SandboxContext {
  session_id: string;
  project_id: string;
  /** the branch of the project's repository the chat was started on (docs/repositories.md); absent: `chat/<session_id>` */
  branch?: string | undefined;
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
  /** the installed BMAD folders reads may land in on disk: bundle, core, plus every BMAD tree and skill folder for an installed bundle */
  installed: RootEntry[];
}

/**
 * Where `{session-folder}` sits among the lexical paths: a chat's scratch space is in the file store, never on
 * disk, and this prefix (with a NUL, which no host path holds and no model path may spell) only lets the
 * lexical steps tell it apart; any file-system call given it fails.
 */
export const sessionsPseudoRoot = "/\u0000sessions";

/**
 * Pins `{project-root}`: realpath once (docs/security.md "The sandbox algorithm", step 2) and remember dev/ino, so a
 * root later replaced by a symlink is detected (docs/security.md case 29).
 */
export async function pinRoots(options: { projectRoot: string }): Promise<PinnedRoots> {
  const projectRoot = await realpath(options.projectRoot);
  const stats = await lstat(projectRoot);
  if (!stats.isDirectory()) throw new Error(`Sandbox root is not a directory: ${projectRoot}`);
  return { projectRoot, identities: [{ path: projectRoot, dev: stats.dev, ino: stats.ino }] };
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
  const session = sessionFolderPath(context.session_id);
  if (!subjectTokenPattern.test(context.project_id)) throw sandboxError("BAD_REQUEST", "Invalid project id");
  const installedRoots = layout.roots.filter((root) => root.kind !== "knowledge");
  if (context.bundle_path === undefined) {
    const outputs = projectOutputFolders(project, chooseOutputs(layout, undefined));
    return { lexical: { project, core: coreFolder(project, layout, undefined), session, outputs }, installed: installedRoots.map(entryOf) };
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
  const bundleReal = await bundleRealPath;
  if (relativeInside(home.root.real, bundleReal) === undefined) {
    throw accessDenied("SYMLINK_ESCAPE", { reason: "bundle resolves outside its BMAD tree or skill folder", bundle: bundleReal });
  }
  const lexical: LexicalRoots = {
    project,
    bundle,
    core,
    session,
    outputs: projectOutputFolders(project, chooseOutputs(layout, home)),
    bundleIsSkill: home.root.kind === "skills",
  };
  const installed: RootEntry[] = [{ name: "bundle", lexical: bundle, real: bundleReal }, { name: "core", lexical: core, real: await coreRealPath }];
  const custom = tree !== undefined && home.relative.split(path.sep)[0] === "custom";
  if (!custom) installed.push(...layout.roots.filter((root) => root.kind !== "knowledge").map(entryOf));
  return { lexical, installed };
}

function entryOf(root: LayoutRoot): RootEntry {
  return { name: root.kind, lexical: root.lexical, real: root.real };
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
 * The output variables (`output_folder`, `planning_artifacts`, …) of the module config that speaks for the
 * bundle: its own module's, else its tree's `bmm`, else any naming them (a skill takes its preferred tree's).
 */
function chooseOutputs(layout: ProjectLayout, home: { root: LayoutRoot; relative: string } | undefined): Readonly<Record<string, string>> {
  const tree = home?.root.kind === "tree" ? home.root : preferredTree(layout);
  if (!tree) return {};
  const module = home?.root.kind === "tree" ? home.relative.split(path.sep)[0] : undefined;
  const modules = layout.outputs.filter((outputs) => outputs.tree === tree.real);
  const chosen =
    modules.find((outputs) => outputs.module === module && Object.keys(outputs.variables).some((name) => name !== "output_folder")) ??
    modules.find((outputs) => outputs.module === "bmm") ??
    modules.find((outputs) => Object.keys(outputs.variables).some((name) => name !== "output_folder"));
  return chosen?.variables ?? {};
}

/** `{session-folder}` of a chat, lexically; the id must be a plain token, so it can never be `..` or contain `/`. */
export function sessionFolderPath(sessionId: string): string {
  if (!subjectTokenPattern.test(sessionId)) throw sandboxError("BAD_REQUEST", "Invalid session id");
  return path.join(sessionsPseudoRoot, sessionId);
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
