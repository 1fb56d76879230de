import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { describe, expect, it } from "vitest";
import { CommandRunner } from "./command-runner.js";
import { nodeFolderOutsideUsr } from "./command-bwrap.js";
import { startCommandRunner, type CommandSettings } from "./start-command-runner.js";

const logger = createLogger("tool-runner-test", "silent");
const settings = (mode: CommandSettings["COMMANDS"], uidBase = 64_400): CommandSettings => ({
  COMMANDS: mode,
  COMMAND_TIMEOUT_MS: 25_000,
  COMMAND_TIMEOUT_MAX_MS: 25_000,
  COMMAND_MEMORY_MB: 512,
  COMMAND_PROCESSES: 64,
  COMMAND_FILE_MB: 64,
  COMMAND_DISK_MB: 64,
  COMMAND_OUTPUT_MAX_BYTES: 65_536,
  COMMAND_CONCURRENCY: 2,
  COMMAND_CONCURRENCY_PER_USER: 1,
  COMMAND_UID_BASE: uidBase,
  SCRIPT_UID_BASE: 64_100,
  SCRIPT_CONCURRENCY: 4,
});

describe("startCommandRunner", () => {
  it("COMMANDS=off gives no runner and never checks the sandbox", async () => {
    const check = () => Promise.reject(new Error("checked"));
    expect(await startCommandRunner({ settings: settings("off"), logger, check })).toBeUndefined();
  });

  it("COMMANDS=auto and COMMANDS=on give a runner where a sandboxed git commit works (bubblewrap is installed here, as in CI)", async () => {
    for (const mode of ["auto", "on"] as const) {
      expect(await startCommandRunner({ settings: settings(mode), logger })).toBeInstanceOf(CommandRunner);
    }
  });

  it("COMMANDS=auto turns commands off with one warning where the sandbox fails; COMMANDS=on does not start", async () => {
    const check = () => Promise.resolve({ ok: false as const, reason: "bwrap: No permissions to create a new namespace" });
    const warnings: unknown[] = [];
    const recording = Object.assign(Object.create(logger) as typeof logger, { warn: (...args: unknown[]) => void warnings.push(args) });
    expect(await startCommandRunner({ settings: settings("auto"), logger: recording, check })).toBeUndefined();
    expect(JSON.stringify(warnings)).toContain("No permissions to create a new namespace");
    expect(warnings).toHaveLength(1);
    await expect(startCommandRunner({ settings: settings("on"), logger, check })).rejects.toThrow(/COMMANDS=on/);
  });

  it.runIf(process.getuid?.() === 0)("a root tool-runner refuses command uids that meet the script slots' uids", async () => {
    await expect(startCommandRunner({ settings: settings("auto", 64_102), logger })).rejects.toThrow(/meet SCRIPT_UID_BASE/);
  });

  it("gives commands the tool-runner's node only when it lies outside /usr, found through links (nvm's, a tarball's)", async () => {
    const base = await mkdtemp(path.join(tmpdir(), "ao-node-"));
    try {
      await mkdir(path.join(base, "node-v24", "bin"), { recursive: true });
      await writeFile(path.join(base, "node-v24", "bin", "node"), "");
      await symlink(path.join(base, "node-v24", "bin", "node"), path.join(base, "node"));
      expect(nodeFolderOutsideUsr(path.join(base, "node"))).toBe(path.join(await realpath(base), "node-v24"));
      expect(nodeFolderOutsideUsr("/usr/bin/true")).toBeUndefined();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
