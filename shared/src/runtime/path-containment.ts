import path from "node:path";

/**
 * The path of `candidate` relative to `root` when it lies inside it ("" for the root itself), else
 * undefined. Both are absolute, and already resolved with realpath where links matter. Compared on segments
 * with path.relative, never by string prefix: `/data/out-evil` is not inside `/data/out`, and a file named
 * `..foo` is (docs/security.md "The sandbox algorithm", step 3).
 */
export function relativeInside(root: string, candidate: string): string | undefined {
  const relative = path.relative(root, candidate);
  if (relative === "") return "";
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return relative;
}

/** True when `candidate` is `root` or lies below it. */
export function isInside(root: string, candidate: string): boolean {
  return relativeInside(root, candidate) !== undefined;
}
