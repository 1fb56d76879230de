import type { Stats } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { isInside } from "@agent-orchestrator/shared/runtime";
import type { ParseOutcome } from "@agent-orchestrator/shared/bmad";
import type { RegistryWarningCode } from "@agent-orchestrator/shared/wire";
import { readTextFile } from "./read-text-file.js";

/** Why a file gave no value: gone, outside its folder, too large, unreadable, or not parseable. */
export type LoadFailureCode = "FILE_MISSING" | "PATH_REJECTED" | "FILE_TOO_LARGE" | "UNREADABLE" | "INVALID";

/** What `load` returns: a (possibly stale) value, or a failure. */
export type LoadOutcome<T> =
  | {
      ok: true;
      value: T;
      /** set when the file is now invalid and `value` is its last good version */
      stale?: { reason: string };
    }
  | { ok: false; code: LoadFailureCode; reason: string; parseCode?: RegistryWarningCode };

interface Entry<T> {
  /** mtime, size and inode: a changed file, or one replaced by rename, gets a new key */
  key: string;
  outcome: LoadOutcome<T>;
  lastGood: T | undefined;
}

/** What says a file changed: mtime, size and inode, so an edit or a replacement by rename gets a new key. */
export function statKey(stats: Stats): string {
  return `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
}

/**
 * Parses files once and answers from memory until they change. Entries are keyed by the file's path
 * (relative to BMAD_ROOT) and validated by mtime + size + inode, so an unchanged file costs one realpath
 * and one stat. When a file changes into something invalid (too large, unreadable, not parseable) its
 * last good value is still returned, marked stale, so a bad edit never takes an agent away (docs/security.md case 86).
 * A file that disappears, or that now resolves outside its bundle, is forgotten with its last good value.
 */
export class FileParseCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #seen = new Set<string>();

  constructor(
    private readonly parse: (text: string, relativePath: string) => ParseOutcome<T>,
    private readonly maxBytes: number,
  ) {}

  /** Starts a scan: entries not loaded before `endScan()` belong to deleted files and are dropped. */
  beginScan(): void {
    this.#seen.clear();
  }

  endScan(): void {
    for (const path of this.#entries.keys()) if (!this.#seen.has(path)) this.#entries.delete(path);
  }

  /**
   * Loads `absolutePath` (reported as `relativePath`), which must resolve inside `containerRealPath` (the
   * realpath of its bundle or module folder), so a symlink cannot lead the registry out of the bundle.
   */
  async load(relativePath: string, absolutePath: string, containerRealPath: string): Promise<LoadOutcome<T>> {
    this.#seen.add(relativePath);
    let realPath: string;
    try {
      realPath = await realpath(absolutePath);
    } catch (error) {
      this.#entries.delete(relativePath);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, code: "FILE_MISSING", reason: "is missing" };
      return { ok: false, code: "UNREADABLE", reason: `cannot be resolved (${code ?? "error"})` };
    }
    if (!isInside(containerRealPath, realPath)) {
      this.#entries.delete(relativePath);
      return { ok: false, code: "PATH_REJECTED", reason: "is a symbolic link that leaves its folder" };
    }
    const stats = await stat(realPath).catch(() => undefined);
    if (!stats) return { ok: false, code: "FILE_MISSING", reason: "is missing" };
    if (!stats.isFile()) return { ok: false, code: "UNREADABLE", reason: "is not a regular file" };

    const key = statKey(stats);
    const entry = this.#entries.get(relativePath);
    if (entry?.key === key) return entry.outcome;

    const fresh = await this.#read(realPath, relativePath, stats.size);
    const lastGood = fresh.ok ? fresh.value : entry?.lastGood;
    const outcome: LoadOutcome<T> =
      fresh.ok || lastGood === undefined ? fresh : { ok: true, value: lastGood, stale: { reason: fresh.reason } };
    this.#entries.set(relativePath, { key, outcome, lastGood });
    return outcome;
  }

  async #read(realPath: string, relativePath: string, size: number): Promise<LoadOutcome<T>> {
    if (size > this.maxBytes) {
      return { ok: false, code: "FILE_TOO_LARGE", reason: `is larger than the ${this.maxBytes}-byte limit (${size} bytes)` };
    }
    const read = await readTextFile(realPath, this.maxBytes);
    if (!read.ok) return { ok: false, code: read.code, reason: read.reason };
    const parsed = this.parse(read.text, relativePath);
    if (parsed.ok) return { ok: true, value: parsed.value };
    return { ok: false, code: "INVALID", reason: parsed.reason, ...(parsed.code ? { parseCode: parsed.code } : {}) };
  }
}
