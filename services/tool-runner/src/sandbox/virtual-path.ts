import path from "node:path";
import { isOutputVariable } from "@agent-orchestrator/shared/bmad";
import { relativeInside } from "@agent-orchestrator/shared/runtime";
import { getOwn } from "@agent-orchestrator/shared/wire";
import { assertPathShape } from "../paths/path-shape.js";
import { sandboxError } from "../paths/sandbox-error.js";

/** The roots a context names; all absolute host paths. */
export interface LexicalRoots {
  /** `{project-root}`: the pinned realpath of BMAD_ROOT */
  project: string;
  /** `{bundle-root}`: `<project>/<bundle_path>`; absent when a caller reads only session files */
  bundle?: string;
  /** `{core-root}`: `<tree>/core` of the bundle's BMAD tree (`.bmad-core` itself for 4.x) */
  core: string;
  /** `{session-folder}`: the chat's scratch space, a lexical path that is never on disk (sessionsPseudoRoot) */
  session: string;
  /**
   * Output variables (`output_folder`, `planning_artifacts`, any `*_artifacts`) → their folder in the project,
   * from the bundle's module config (output-folders.ts); one missing there is `<output folder>/<name with dashes>`.
   */
  outputs?: Readonly<Record<string, string>>;
  /** the bundle is a skill folder: its paths are shown as `{project-root}/.claude/skills/<name>/…` */
  bundleIsSkill?: boolean;
}
/** The name of one root: `project`, `bundle`, `core` or `session`. */
export type RootName = "project" | "bundle" | "core" | "session";

/** The variables a path may start with. `{project_root}` is the spelling some BMAD instructions use. */
const rootVariables: Readonly<Record<string, RootName>> = {
  "project-root": "project",
  project_root: "project",
  "bundle-root": "bundle",
  "core-root": "core",
  "session-folder": "session",
};

/** How each root is named to the model. */
export const virtualRootNames: Readonly<Record<RootName, string>> = {
  project: "{project-root}",
  bundle: "{bundle-root}",
  core: "{core-root}",
  session: "{session-folder}",
};

/** The variable names a path may start with, as shown in error messages. */
export const knownPathVariables = [...Object.keys(rootVariables), "output_folder", "planning_artifacts", "implementation_artifacts"].map((name) => `{${name}}`);

const leadingVariable = /^\{([^{}/]*)\}(?=\/|$)/;
const anyVariable = /\{+([^{}]*)\}+/;

/**
 * Turns a path the model wrote into an absolute host path, with no filesystem access: shape checks, then
 * the leading root variable, then normalisation. A path without a variable is relative to the project
 * root; an absolute path stays absolute (the caller decides whether it lands in an allowed root). Any
 * other `{name}` is UNRESOLVED_VARIABLE, so no literal `{foo}` folder is ever created.
 */
export function resolveVirtualPath(input: unknown, roots: LexicalRoots): string {
  assertPathShape(input);
  let base = roots.project;
  let rest = input;
  const leading = leadingVariable.exec(input);
  if (leading) {
    const name = leading[1] ?? "";
    const root = variableFolder(name, roots);
    if (root === undefined) throw unresolved(name);
    base = root;
    rest = `.${input.slice(leading[0].length)}`;
  }
  const stray = anyVariable.exec(rest);
  if (stray) {
    const name = stray[1] ?? "";
    if (getOwn(rootVariables, name) !== undefined || isOutputVariable(name)) {
      throw sandboxError("INVALID_PATH", `Invalid path: {${name}} may only start a path`);
    }
    throw unresolved(name);
  }
  if (["", "."].includes(path.posix.normalize(input).replace(/\/+$/, ""))) throw sandboxError("INVALID_PATH", "Invalid path: it names no file");
  // resolve, not join: an absolute `rest` must stay absolute so the containment check sees it
  return path.resolve(base, rest);
}

/**
 * The virtual form of a host path: the most specific root that contains it wins (`{core-root}/…` rather
 * than `{project-root}/bmad/core/…`). Undefined when no root contains it.
 */
export function toVirtualPath(hostPath: string, roots: LexicalRoots): string | undefined {
  const order: RootName[] = roots.bundleIsSkill ? ["session", "core", "project"] : ["session", "bundle", "core", "project"];
  const candidates = order
    .map((name) => {
      const root = roots[name];
      return { name, relative: root === undefined ? undefined : relativeInside(root, hostPath), depth: root?.length ?? 0 };
    })
    .filter((candidate): candidate is { name: RootName; relative: string; depth: number } => candidate.relative !== undefined)
    .sort((a, b) => b.depth - a.depth);
  const best = candidates[0];
  if (!best) return undefined;
  const suffix = best.relative === "" ? "" : `/${best.relative.split(path.sep).join("/")}`;
  return `${virtualRootNames[best.name]}${suffix}`;
}

/**
 * Rewrites a leading root variable to the most specific root, lexically and without checks:
 * `{project-root}/bmad/core/tasks/x.xml` → `{core-root}/tasks/x.xml`. Text without a known leading root
 * variable, or that leaves every root, is returned as it is; other `{names}` in it are kept.
 */
export function canonicalVirtualPath(text: string, roots: LexicalRoots): string {
  const leading = leadingVariable.exec(text);
  const root = leading ? variableFolder(leading[1] ?? "", roots) : undefined;
  if (!leading || root === undefined) return text;
  return toVirtualPath(path.resolve(root, `.${text.slice(leading[0].length)}`), roots) ?? text;
}

/**
 * The host folder a leading variable names: a root, or an output variable's folder in the project
 * (`{planning_artifacts}` → `<project>/_bmad-output/planning-artifacts`, docs/projects.md "Paths").
 */
function variableFolder(name: string, roots: LexicalRoots): string | undefined {
  const rootName = getOwn(rootVariables, name);
  if (rootName !== undefined) return roots[rootName];
  if (!isOutputVariable(name)) return undefined;
  const mapped = roots.outputs === undefined ? undefined : getOwn(roots.outputs, name);
  const outputFolder = (roots.outputs === undefined ? undefined : getOwn(roots.outputs, "output_folder")) ?? path.join(roots.project, "_bmad-output");
  if (mapped !== undefined) return mapped;
  if (name === "output_folder") return outputFolder;
  // BMAD's own default when a module config does not name it
  if (name === "project_knowledge") return path.join(roots.project, "docs");
  return path.join(outputFolder, name.replace(/_/g, "-"));
}

function unresolved(name: string) {
  return sandboxError(
    "UNRESOLVED_VARIABLE",
    `Unresolved variable {${name}} in the path: replace it with its value. Paths may start with ${knownPathVariables.join(", ")}.`,
  );
}
