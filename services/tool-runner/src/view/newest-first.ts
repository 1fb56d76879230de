/** Orders files newest first (modification time), then by path, so equal times list the same way every call. */
export function newestFirst(a: { path: string; mtimeMs: number }, b: { path: string; mtimeMs: number }): number {
  if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
