import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The first Node.js major that runs tools built for Node 22 and later (the MCP conformance suite). */
const wantedMajor = 22;

/**
 * A Node.js binary of version 22 or later: the one running the tests when it is (CI's Node.js 24 pass), else the
 * Node.js 24 that .ci/run installs for that pass (the same folder, NODE24_DIR or the user's cache), installed there
 * from the npm registry's `node` package first when missing, so the first pass on Node.js 20 runs the same test.
 */
export async function node22OrLater(): Promise<string> {
  if (major(process.versions.node) >= wantedMajor) return process.execPath;
  const folder = process.env["NODE24_DIR"] ?? join(process.env["XDG_CACHE_HOME"] ?? join(process.env["HOME"] ?? homedir(), ".cache"), "agent-orchestrator", "node-24");
  const binary = join(folder, "node_modules", ".bin", "node");
  if (!existsSync(binary) || major(await versionOf(binary)) < wantedMajor) {
    await run("npm", ["install", "--prefix", folder, "--no-audit", "--no-fund", "node@24"], { timeout: 300_000 });
  }
  return binary;
}

async function versionOf(binary: string): Promise<string> {
  return (await run(binary, ["--version"]).catch(() => ({ stdout: "v0" }))).stdout.trim().replace(/^v/, "");
}

const major = (version: string): number => Number(version.split(".")[0]);
