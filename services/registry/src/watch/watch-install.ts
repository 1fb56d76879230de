import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isInstallTreeName, isSkillHostName, skillsFolderName } from "@agent-orchestrator/shared/bmad";
import { type Logger } from "@agent-orchestrator/shared/runtime";
import { watchTree, type TreeWatcher } from "./watch-tree.js";

/** Where to watch and how to report; the same settings as one tree's watch. */
export interface InstallWatchOptions {
  /** BMAD_ROOT */
  root: string;
  pollMs: number;
  debounceMs: number;
  forcePoll: boolean;
  onChange: () => void;
  logger: Logger;
}

/**
 * Watches what discovery reads at BMAD_ROOT, and nothing else: the root's own entries (so a new install
 * tree or tool folder is seen), each BMAD tree (`_bmad/`, `bmad/`, `.bmad-*`) recursively, each tool
 * folder's `skills/` recursively, and a tool folder without `skills/` yet by its own entries only. The rest
 * of the project (sources, `node_modules`, `.git`, a virtualenv) is never watched. The set is worked out
 * again whenever the root changes. With polling forced, the root's poll alone re-scans, since every scan
 * reads the whole install anyway.
 */
export async function watchInstall(options: InstallWatchOptions): Promise<TreeWatcher> {
  const trees = new Map<string, TreeWatcher>();
  let closed = false;
  let refreshing: Promise<void> = Promise.resolve();

  const refresh = () => {
    // one refresh at a time; a failed one does not stop the next
    refreshing = refreshing.catch(() => undefined).then(async () => {
      if (closed) return;
      const wanted = await watchTargets(options.root);
      for (const [key, watcher] of trees) {
        if (!wanted.has(key)) {
          watcher.close();
          trees.delete(key);
        }
      }
      for (const [key, target] of wanted) {
        if (trees.has(key) || closed) continue;
        trees.set(
          key,
          await watchTree({
            ...baseOptions,
            directory: target.directory,
            recursive: target.recursive,
            rescanOnTick: false,
            // a tool folder watched flat may just have got its skills/ folder: watch that instead
            onChange: target.recursive ? options.onChange : rearmThenChange,
          }),
        );
      }
    });
    return refreshing;
  };

  const rearmThenChange = () => {
    void refresh()
      .catch((error: unknown) => options.logger.warn({ err: error }, "could not update the watched folders"))
      .finally(options.onChange);
  };
  const baseOptions = { pollMs: options.pollMs, debounceMs: options.debounceMs, forcePoll: options.forcePoll, logger: options.logger };
  const root = await watchTree({
    ...baseOptions,
    directory: options.root,
    recursive: false,
    // the watchers are updated before the re-scan, so a change made in a new folder meanwhile is not missed
    onChange: () => (options.forcePoll ? options.onChange() : rearmThenChange()),
  });
  if (!options.forcePoll) await refresh();

  return {
    get mode() {
      return root.mode;
    },
    close() {
      closed = true;
      root.close();
      for (const watcher of trees.values()) watcher.close();
      trees.clear();
    },
  };
}

/** The folders to watch, keyed by path and how (a folder watched flat becomes recursive once it is a skills folder). */
async function watchTargets(root: string): Promise<Map<string, { directory: string; recursive: boolean }>> {
  const entries = await readdir(root, { withFileTypes: true }).catch((): Dirent[] => []);
  const targets = new Map<string, { directory: string; recursive: boolean }>();
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    if (isInstallTreeName(entry.name)) {
      const directory = join(root, entry.name);
      targets.set(`${directory}:tree`, { directory, recursive: true });
    } else if (isSkillHostName(entry.name)) {
      const skills = join(root, entry.name, skillsFolderName);
      const hasSkills = (await stat(skills).catch(() => undefined))?.isDirectory() ?? false;
      const directory = hasSkills ? skills : join(root, entry.name);
      targets.set(`${directory}:${hasSkills ? "tree" : "flat"}`, { directory, recursive: hasSkills });
    }
  }
  return targets;
}
