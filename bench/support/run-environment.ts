import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { findNatsServerBinary } from "@agent-orchestrator/testing/local-nats";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** What a result depends on besides our code: versions of the runtime, the server and the client libraries. */
export interface Versions {
  node: string;
  natsServer: string;
  nats: string;
  openai: string;
  openaiAgents: string;
  commit: string;
}

/** The machine, so a reader can tell a slow box from a slow system. Load is sampled at start and end. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  loadAverage1m: number;
}

export function collectVersions(): Versions {
  const binary = findNatsServerBinary();
  return {
    node: process.version,
    natsServer: binary ? run(binary, ["--version"]).replace(/^nats-server:\s*/, "") : "not found",
    nats: packageVersion("nats"),
    openai: packageVersion("openai"),
    openaiAgents: packageVersion("@openai/agents"),
    commit: run("git", ["-C", repoRoot, "rev-parse", "--short", "HEAD"]),
  };
}

export function describeMachine(): Machine {
  const all = cpus();
  return {
    cpu: all[0]?.model ?? "unknown",
    cores: all.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** The installed version (npm hoists these to the root node_modules). */
function packageVersion(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(`${repoRoot}node_modules/${name}/package.json`, "utf8")) as { version?: string };
    return manifest.version ?? "unknown";
  } catch {
    return "not installed";
  }
}

function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}
