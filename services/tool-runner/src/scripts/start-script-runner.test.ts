import { chmod } from "node:fs/promises";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { testSpawnAs } from "../testing/script-fixture.js";
import { checkScriptSandbox } from "./script-sandbox-check.js";
import { ScriptRunner } from "./script-runner.js";
import { startScriptRunner, type ScriptSettings } from "./start-script-runner.js";

const logger = createLogger("tool-runner-test", "silent");
const settings = (mode: ScriptSettings["SCRIPTS"]): ScriptSettings => ({
  SCRIPTS: mode,
  SCRIPT_TIMEOUT_MS: 30_000,
  SCRIPT_MEMORY_MB: 512,
  SCRIPT_OUTPUT_MAX_BYTES: 65_536,
  SCRIPT_CONCURRENCY: 4,
  SCRIPT_CONCURRENCY_PER_USER: 2,
  SCRIPT_PROCESSES: 64,
  SCRIPT_DISK_MB: 64,
  SCRIPT_UID_BASE: 64_100,
});
let fixture: SandboxFixture;
beforeEach(async () => {
  fixture = await createSandboxFixture();
});
afterEach(() => fixture.cleanup());

describe("startScriptRunner", () => {
  it("SCRIPTS=off gives no runner and never checks the sandbox", async () => {
    expect(await startScriptRunner({ settings: settings("off"), sandbox: fixture.sandbox, files: fixture.files, logger })).toBeUndefined();
  });

  it("SCRIPTS=auto and SCRIPTS=on give a runner where the sandbox works (bubblewrap is installed here, as in CI)", async () => {
    // a root tool-runner's sandboxes read BMAD_ROOT as another user: mkdtemp made the fixture's base private
    if (testSpawnAs) await chmod(fixture.base, 0o755);
    expect(await checkScriptSandbox({ spawnAs: testSpawnAs?.(0) })).toEqual({ ok: true, seccomp: false, bindInstallFirst: false });
    for (const mode of ["auto", "on"] as const) {
      expect(await startScriptRunner({ settings: settings(mode), sandbox: fixture.sandbox, files: fixture.files, logger })).toBeInstanceOf(ScriptRunner);
    }
  });

  it.runIf(testSpawnAs !== undefined)("a root tool-runner whose BMAD_ROOT its sandbox users cannot reach (a 0700 folder above it) binds it for them", async () => {
    // mkdtemp made the fixture's base 0700, as a private home is
    expect(await checkScriptSandbox({ spawnAs: testSpawnAs?.(0), projectRoot: fixture.project })).toEqual({ ok: true, seccomp: false, bindInstallFirst: true });
    await chmod(fixture.base, 0o755);
    expect(await checkScriptSandbox({ spawnAs: testSpawnAs?.(0), projectRoot: fixture.project })).toEqual({ ok: true, seccomp: false, bindInstallFirst: false });
  });

  it("a BMAD_ROOT the tool-runner itself cannot open turns scripts off, saying so", async () => {
    expect(await checkScriptSandbox({ spawnAs: testSpawnAs?.(0), projectRoot: `${fixture.base}/missing` })).toEqual({
      ok: false,
      reason: "the tool-runner cannot open BMAD_ROOT (ENOENT), so no sandbox could see the install",
    });
  });

  it("SCRIPTS=auto turns scripts off with one warning where the sandbox fails; SCRIPTS=on does not start", async () => {
    const check = () => Promise.resolve({ ok: false as const, reason: "bwrap: No permissions to create a new namespace" });
    const warnings: unknown[] = [];
    const recording = Object.assign(Object.create(logger) as typeof logger, { warn: (...args: unknown[]) => void warnings.push(args) });
    expect(await startScriptRunner({ settings: settings("auto"), sandbox: fixture.sandbox, files: fixture.files, logger: recording, check })).toBeUndefined();
    expect(JSON.stringify(warnings)).toContain("No permissions to create a new namespace");
    expect(warnings).toHaveLength(1);
    await expect(startScriptRunner({ settings: settings("on"), sandbox: fixture.sandbox, files: fixture.files, logger, check })).rejects.toThrow(/SCRIPTS=on/);
  });
});
