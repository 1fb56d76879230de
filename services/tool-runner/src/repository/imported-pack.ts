import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { isAcceptedRefName } from "@agent-orchestrator/shared/wire";
import { GitFailed, runGit } from "../git/git-command.js";

/** A ref of an imported repository. */
export interface ImportedRef {
  name: string;
  id: string;
}

/** A repository brought in (a bundle, a clone) into a temporary bare repository of the host's, checked and in one pack. */
export interface ImportedPack {
  pack: string;
  packFile: string;
  indexFile: string;
  bytes: number;
  refs: ImportedRef[];
  defaultBranch: string;
}

/** What an import may hold. */
export interface ImportLimits {
  maxBytes: number;
  maxFiles: number;
  maxRefs: number;
}

/** The REPOSITORY_REFUSED error: `reason` says what to change, in words a user can act on. */
export function repositoryRefused(reason: string, cause?: unknown): AppError {
  return new AppError("REPOSITORY_REFUSED", `Repository refused: ${reason}`, cause === undefined ? {} : { cause });
}

/**
 * Checks what an import left in the bare repository `gitDir` and names its pack: the refs (only branches and
 * tags are kept; a name git or we refuse refuses the whole import, RELIABILITY case 93), their count, every object
 * they reach being there (`git rev-list --objects`, as git's own receive checks), the default branch's files, and
 * one pack within the size.
 */
export async function checkedImport(gitDir: string, refs: readonly ImportedRef[], preferred: string | undefined, limits: ImportLimits): Promise<ImportedPack> {
  const kept = refs.filter((ref) => ref.name.startsWith("refs/heads/") || ref.name.startsWith("refs/tags/"));
  const refused = kept.find((ref) => !isAcceptedRefName(ref.name));
  if (refused) throw repositoryRefused(`the ref name ${JSON.stringify(refused.name.slice(0, 80))} is not allowed (printable ASCII, git's rules, at most 255 characters)`);
  if (kept.length > limits.maxRefs) throw repositoryRefused(`${kept.length} branches and tags; at most ${limits.maxRefs} (REPOSITORY_MAX_REFS)`);
  const branches = kept.filter((ref) => ref.name.startsWith("refs/heads/"));
  if (branches.length === 0) throw repositoryRefused("it has no branch");
  const defaultBranch = pickDefault(branches, preferred);
  try {
    await runGit({ gitDir, args: ["rev-list", "--objects", "--quiet", "--stdin"], input: `${kept.map((ref) => ref.id).join("\n")}\n`, timeoutMs: 10 * 60_000 });
  } catch (error) {
    if (error instanceof GitFailed) throw repositoryRefused("it is incomplete: objects its branches need are missing", error);
    throw error;
  }
  const listing = await runGit({ gitDir, args: ["ls-tree", "-r", "-z", "--name-only", `refs/heads/${defaultBranch}`], maxOutputBytes: 512 * 1024 * 1024 });
  const files = listing.stdout.reduce((count, byte) => (byte === 0 ? count + 1 : count), 0);
  if (files > limits.maxFiles) throw repositoryRefused(`its branch ${defaultBranch} has ${files} files; at most ${limits.maxFiles} (REPOSITORY_MAX_FILES)`);
  const packFolder = path.join(gitDir, "objects", "pack");
  const packs = (await readdir(packFolder).catch(() => [])).filter((name) => name.endsWith(".pack"));
  const [only] = packs;
  if (packs.length !== 1 || only === undefined) throw new AppError("INTERNAL", `An import made ${packs.length} packs, not one`);
  const packFile = path.join(packFolder, only);
  const bytes = (await stat(packFile)).size;
  if (bytes > limits.maxBytes) throw repositoryRefused(`its objects take ${bytes} bytes; at most ${limits.maxBytes} (REPOSITORY_MAX_BYTES)`);
  return { pack: only.slice(0, -".pack".length), packFile, indexFile: packFile.replace(/\.pack$/, ".idx"), bytes, refs: kept, defaultBranch };
}

/** The branch HEAD names, else `main`, `master`, else the first in name order. */
function pickDefault(branches: readonly ImportedRef[], preferred: string | undefined): string {
  const names = branches.map((ref) => ref.name.slice("refs/heads/".length)).sort();
  for (const name of [preferred, "main", "master"]) if (name !== undefined && names.includes(name)) return name;
  return names[0] ?? "main";
}
