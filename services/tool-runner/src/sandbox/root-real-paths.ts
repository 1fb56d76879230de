import { realpath } from "node:fs/promises";
import { LRUCache } from "lru-cache";
import { layoutMaxAgeMs } from "./layout-cache.js";
import { errnoCode } from "../paths/sandbox-error.js";

/** Bundles and cores a process serves: far more than any project holds. */
const maxRoots = 10_000;

/**
 * The realpaths of the bundle and core roots calls name, kept as long as the project's layout is (whose own
 * roots' realpaths are kept the same way), so a call does not resolve its roots again. A stale entry can
 * only refuse more: a target's realpath has no symlink in it, so it lies under a kept root only when it is
 * really in that folder. A root that does not exist is its own path (nothing under it can be read).
 */
export class RootRealPaths {
  private readonly known = new LRUCache<string, Promise<string>>({ max: maxRoots, ttl: layoutMaxAgeMs });

  of(root: string): Promise<string> {
    let real = this.known.get(root);
    if (!real) {
      real = realpathOr(root);
      this.known.set(root, real);
      real.catch(() => this.known.delete(root));
    }
    return real;
  }
}

async function realpathOr(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return target;
    throw error;
  }
}
