/**
 * The phrases BMAD agents use to say "load this file now": v6 early `Load into memory X and set …`,
 * v6 compiled `Load and read X NOW`, and plain `Load X`/`Read X` where X is a path with a root variable.
 */
const rootedLoad = /\b(?:load|read)\b[^{\n]*?(\{(?:bundle-root|core-root|project-root)\}[^\s"'`,;)]*)/i;

/**
 * The same with a bare path into a BMAD tree, as 4.x writes it: "Load and read `.bmad-core/core-config.yaml`
 * before any greeting" (docs/bmad-releases.md). The path must start a word (not `{project-root}/bmad/…`) and
 * name a file, not a pattern such as `.bmad-core/{type}/{name}`.
 */
const bareLoad = /\b(?:load|read)\b[^\n]*?(?<![\w/{}.-])((?:\.bmad-[\w-]+|_bmad|bmad)\/[^\s"'`,;)]+)/i;

/**
 * Finds the file a critical action asks to load, if it asks for one, as a virtual path: a bare path into a
 * BMAD tree is relative to the project, so it becomes `{project-root}/…`.
 */
export function fileToLoad(action: string): string | undefined {
  const rooted = rootedLoad.exec(action)?.[1];
  if (rooted !== undefined) return trimEnd(rooted);
  const bare = bareLoad.exec(action)?.[1];
  return bare === undefined || bare.includes("{") ? undefined : `{project-root}/${trimEnd(bare)}`;
}

const trimEnd = (path: string): string => path.replace(/[.:]+$/, "");

/**
 * The files an agent's start reads, in order and each once, as virtual paths: the registry fingerprints
 * them and the orchestrator loads them, so both must find the same ones.
 */
export function criticalFiles(actions: readonly string[]): string[] {
  const files = new Set<string>();
  for (const action of actions) {
    const path = fileToLoad(action);
    if (path !== undefined) files.add(path);
  }
  return [...files];
}
