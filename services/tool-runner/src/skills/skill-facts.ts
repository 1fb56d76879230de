import path from "node:path";
import { AppError, relativeInside } from "@agent-orchestrator/shared/runtime";
import { resolveVirtualPath, toVirtualPath, type ContextRoots, type Sandbox, type SandboxContext } from "../sandbox/index.js";
import { liveFiles } from "../store/space-index.js";
import { expandGlob, factGlobLimits, hasGlob, matchesGlob } from "./fact-glob.js";

/** One persistent fact: where it came from and its text. */
export interface SkillFact {
  source: string;
  content: string;
}

/** What the facts need: the sandbox and the call's roots, and a resolver for config variables in entries. */
export interface FactSources {
  sandbox: Sandbox;
  context: SandboxContext;
  roots: ContextRoots;
  /** resolves `{user_name}` and the like in an entry */
  resolve: (text: string) => string;
}

/**
 * Loads `persistent_facts` the way BMAD's activation does (docs/bmad-releases.md, "Persistent facts"): a
 * literal entry is a fact as written; `file:<path or glob>` adds each matching file's content, read through the
 * sandbox, with its virtual path as the source (at most `factGlobLimits.maxFiles` files; a glob only walks
 * the readable roots); `skill:<name>` is left for the model to load. Whatever cannot be loaded becomes a note,
 * never a failure.
 */
export async function loadSkillFacts(entries: unknown, sources: FactSources): Promise<{ facts: SkillFact[]; notes: string[] }> {
  const facts: SkillFact[] = [];
  const notes: string[] = [];
  const list = Array.isArray(entries) ? entries : entries === undefined ? [] : [entries];
  for (const entry of list) {
    if (typeof entry !== "string" || entry.trim() === "") continue;
    const text = entry.trim();
    if (text.startsWith("skill:")) {
      const name = text.slice("skill:".length).trim();
      notes.push(`Persistent fact "${text}": when it is needed, load it with load_skill("${name.split(/\s/)[0] ?? name}").`);
    } else if (text.startsWith("file:")) {
      await loadFileFacts(sources.resolve(text.slice("file:".length).trim()), sources, facts, notes);
    } else {
      facts.push({ source: "persistent_facts", content: sources.resolve(text) });
    }
  }
  return { facts, notes };
}

async function loadFileFacts(pattern: string, sources: FactSources, facts: SkillFact[], notes: string[]): Promise<void> {
  const segments = pattern.split("/");
  if (pattern === "" || segments.includes("..") || pattern.includes("\\")) {
    notes.push(`Persistent fact "file:${pattern}" not loaded: access denied`);
    return;
  }
  let paths: string[];
  let limited = false;
  const firstGlob = segments.findIndex(hasGlob);
  if (firstGlob === -1) paths = [pattern];
  else {
    let base: string;
    try {
      base = resolveVirtualPath(firstGlob === 0 ? "{project-root}" : segments.slice(0, firstGlob).join("/") || "/", sources.roots.lexical);
    } catch (error) {
      if (!AppError.is(error)) throw error;
      notes.push(`Persistent fact "file:${pattern}" not loaded: ${error.code}`);
      return;
    }
    const installed = sources.roots.installed.map((root) => root.lexical);
    const expanded = await expandGlob(base, segments.slice(firstGlob), installed);
    const stored = await storedMatches(base, segments.slice(firstGlob), sources);
    limited = expanded.limited;
    // a match outside every root has no virtual path and is never shown
    paths = [...expanded.files, ...stored].map((file) => toVirtualPath(file, sources.roots.lexical)).filter((file) => file !== undefined);
  }
  if (paths.length === 0) notes.push(`Persistent fact "file:${pattern}" matched no readable file`);
  if (limited) notes.push(`Persistent fact "file:${pattern}": only the first ${factGlobLimits.maxFiles} files (or those found within the search limit) were loaded`);
  for (const file of paths.slice(0, factGlobLimits.maxFiles)) {
    try {
      const read = await sources.sandbox.read(sources.context, file);
      facts.push({ source: read.path, content: read.content });
      if (read.truncated) notes.push(`${read.path} is larger than the read limit; only its start is a fact`);
    } catch (error) {
      if (!AppError.is(error)) throw error;
      notes.push(`Persistent fact "file:${file}" not loaded: ${error.code === "FILE_NOT_FOUND" ? "file not found" : "access denied"}`);
    }
  }
}

/**
 * The project's and the chat's own files (lexical host paths) under `base` that match the glob: they live in
 * the file store, or the chat's working tree of the project's repository, not on disk (docs/projects.md,
 * docs/repositories.md), e.g. a project-context.md anywhere in the project.
 */
async function storedMatches(base: string, segments: readonly string[], sources: FactSources): Promise<string[]> {
  const { lexical } = sources.roots;
  const spaces = [
    { folder: lexical.project, space: { kind: "project" as const, id: sources.context.project_id } },
    { folder: lexical.session, space: { kind: "session" as const, id: sources.context.session_id } },
  ];
  const found: string[] = [];
  // a project with a repository: its files are the chat's working tree (docs/repositories.md)
  const tree = await sources.sandbox.workingTree(sources.context);
  for (const { folder, space } of spaces) {
    const files = space.kind === "project" && tree ? (await tree.repository.reader.files(tree.state.files)).filter((file) => file.kind === "file" || file.kind === "executable") : liveFiles(await sources.sandbox.files.index(space));
    for (const file of files) {
      const hostPath = path.join(folder, file.path);
      const relative = relativeInside(base, hostPath);
      if (relative === undefined || relative === "") continue;
      if (matchesGlob(relative.split(path.sep), segments)) found.push(hostPath);
    }
  }
  return found.sort().slice(0, factGlobLimits.maxFiles);
}
