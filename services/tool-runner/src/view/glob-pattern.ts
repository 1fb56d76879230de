import picomatch from "picomatch";
import { sandboxError } from "../paths/sandbox-error.js";
import type { PatternSource } from "./pattern-worker.js";

/** A find_files pattern split into the folder its literal start names and the glob below it. */
export interface GlobPlan {
  /**
   * the path the pattern's literal folders name (`{planning_artifacts}`, `{project-root}/docs`, `path` plus a
   * relative pattern's literal folders), checked by the sandbox like any path; undefined for the whole view
   */
  base: string | undefined;
  /** the glob the paths below the base are matched against (`**` when the pattern names no more) */
  glob: string;
}

// C0/C1 controls (NUL included) and bidi marks: no name the view lists holds one (path-shape.ts)
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
// a path variable, which a brace alternative (`{a,b}`) is not
const leadingVariable = /^\{[^{}/,]*\}(?=\/|$)/;

/**
 * Splits a find_files pattern. A pattern that starts with a path variable (`{planning_artifacts}/…`) or
 * `/` names its own folder; a relative one is below `folder` (the call's `path`), or, with none, matched
 * against every file of the view from its root (`{project-root}` or `{session-folder}`). The literal folders
 * at its start go to `base`, so the sandbox refuses `{project-root}/.git/**`, an absolute folder outside, or an
 * unknown variable, as it would for list_files. `..` is refused here: a pattern never climbs (INVALID_PATTERN).
 */
export function planGlob(pattern: string, folder: string | undefined): GlobPlan {
  assertPatternShape(pattern);
  const variable = leadingVariable.exec(pattern)?.[0];
  // what the literal folders are below: the variable, the filesystem root, `folder`, or (none) the view's roots
  const start = variable ?? (pattern.startsWith("/") ? "" : folder?.replace(/\/+$/, ""));
  const segments = pattern
    .slice(variable?.length ?? 0)
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".");
  if (start === undefined) return { base: undefined, glob: segments.join("/") || "**" };
  const firstGlob = segments.findIndex(isGlobSegment);
  const literal = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  return { base: [start, ...literal].join("/") || "/", glob: firstGlob === -1 ? "**" : segments.slice(firstGlob).join("/") };
}

/** Refuses what no glob of the view needs: control and bidi characters, and `..`. */
export function assertPatternShape(pattern: string): void {
  if (unsafeCharacters.test(pattern)) throw invalidPattern("it contains a control or bidi character");
  if (pattern.split("/").includes("..")) throw invalidPattern(".. is not allowed; name the folder with path instead");
}

/**
 * A glob as the regular expression picomatch makes of it (dot files included), to run in a pattern worker:
 * a glob's expression can backtrack badly too, so it never runs on the event loop.
 */
export function globSource(glob: string, options: { nocase?: boolean } = {}): PatternSource {
  try {
    const regex = picomatch.makeRe(glob, { dot: true, ...(options.nocase ? { nocase: true } : {}) });
    return { source: regex.source, flags: regex.flags };
  } catch (error) {
    throw invalidPattern(error instanceof Error ? error.message : String(error));
  }
}

/** The pattern with a `**` folder put before its first name, so it matches at any depth; undefined when it starts with `**`. */
export function widerGlob(pattern: string): string | undefined {
  const variable = leadingVariable.exec(pattern)?.[0];
  const rest = pattern.slice(variable?.length ?? 0).replace(/^\/+/, "");
  if (rest.startsWith("**")) return undefined;
  return `${variable === undefined ? "" : `${variable}/`}**/${rest}`;
}

/** True for a glob that matches file names, not paths: it holds no `/` (as ripgrep's `-g`). */
export function matchesNames(glob: string): boolean {
  return !glob.includes("/");
}

function isGlobSegment(segment: string): boolean {
  return segment.includes("\\") || picomatch.scan(segment).isGlob;
}

function invalidPattern(reason: string) {
  return sandboxError("INVALID_PATTERN", `Invalid pattern: ${reason}`);
}
