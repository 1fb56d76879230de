/**
 * Measure 13's baselines: the same finds and searches on the same files written to disk, by the tools a
 * developer would use, each run as a process as a shell would run it. ripgrep (`rg --files -g`, `rg -n`) when
 * it is on the PATH, else `find` and `grep -rn`. The page cache holds the files (they were just written).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { FindQuery } from "./find-project.js";
import type { SearchQuery } from "./search-corpus.js";

const ripgrep = (process.env["PATH"] ?? "").split(delimiter).some((folder) => folder !== "" && existsSync(join(folder, "rg")));

/** The baseline commands, as the table names them. */
export const diskTools = ripgrep ? { find: "rg --files -g", search: "rg -n" } : { find: "find", search: "grep -rn" };

/** The lines a command in `cwd` prints; exit code 1 is "nothing found" for both grep and rg. */
function outputLines(command: string, args: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 256 * 1024 * 1024 }, (error, stdout) => {
      if (error && error.code !== 1) reject(error);
      else resolve(stdout === "" ? 0 : stdout.split("\n").length - 1);
    });
  });
}

/** How many files under `root` match the query's glob. */
export const findOnDisk = (root: string, query: FindQuery): Promise<number> =>
  ripgrep ? outputLines("rg", ["--files", "-g", query.glob], root) : outputLines("find", query.find, root);

/** How many lines of the files under `root` match the query. */
export const searchOnDisk = (root: string, query: SearchQuery): Promise<number> =>
  ripgrep
    ? outputLines("rg", ["-n", "--no-heading", ...(query.literal ? ["-F"] : []), "-e", query.pattern, "."], root)
    : outputLines("grep", ["-rn", query.literal ? "-F" : "-E", "-e", query.pattern, "."], root);
