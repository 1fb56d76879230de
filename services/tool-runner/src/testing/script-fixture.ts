import { chmod, cp, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared";
import { ManifestStore } from "../manifest/manifest-store.js";
import type { SessionQuota } from "../manifest/session-quota.js";
import { createSandbox, type Sandbox } from "../sandbox/index.js";
import { ScriptRunner, type ScriptRunnerOptions } from "../scripts/index.js";
import { detectSandboxCgroups } from "../scripts/sandbox-cgroups.js";
import { seccompArchitecture, seccompFilter } from "../scripts/seccomp-filter.js";
import { slotUsers } from "../scripts/start-script-runner.js";
import type { ToolDependencies } from "../tools/index.js";
import { fixtureQuota } from "./sandbox-fixture.js";

/** A throw-away BMAD project, output root and script runner for tests. */
export interface ScriptFixture {
  base: string;
  /** BMAD_ROOT: a copy of a real install, or a small `_bmad/` + `.claude/skills/demo/` tree */
  project: string;
  /** a sibling of the project holding `secret` */
  outside: string;
  output: string;
  /** `<output>/s1`, already created */
  session: string;
  sessionId: string;
  sandbox: Sandbox;
  runner: ScriptRunner;
  deps: ToolDependencies;
  /** writes a file into the project copy (never into the install cache) */
  plant(relative: string, content: string): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * When the tests run as root, bwrap starts as an unprivileged host user per slot, as a root tool-runner does
 * (SCRIPT_UID_BASE). Those users must be able to reach the project (docs/security.md "Scripts"), so the
 * fixture's base folder is opened to others.
 */
export const testSpawnAs = process.getuid?.() === 0 ? slotUsers(64_100) : undefined;
const hostCgroups = detectSandboxCgroups();
const architecture = seccompArchitecture();
const seccompFilterHere = architecture ? seccompFilter(architecture) : undefined;

/** Builds the project (copying `copyFrom` when given), a secret outside it, an output root and a runner. */
export async function createScriptFixture(
  options: { copyFrom?: string; runner?: Partial<Omit<ScriptRunnerOptions, "sandbox">>; quota?: SessionQuota } = {},
): Promise<ScriptFixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-scripts-")));
  if (testSpawnAs) await chmod(base, 0o755);
  const project = path.join(base, "project");
  const outside = path.join(base, "outside");
  const output = path.join(base, "out");
  if (options.copyFrom) await cp(options.copyFrom, project, { recursive: true });
  for (const folder of ["_bmad/scripts", "_bmad/render", ".claude/skills/demo/scripts", "src"]) await mkdir(path.join(project, folder), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret"), "HOST SECRET 4242\n", { mode: 0o644 });
  await writeFile(path.join(project, "src", "private.txt"), "PROJECT PRIVATE 7373\n");
  const session = path.join(output, "s1");
  await mkdir(session, { recursive: true });
  const sandbox = await createSandbox({ projectRoot: project, outputRoot: output, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 1000 });
  const runner = new ScriptRunner({
    sandbox,
    timeoutMs: 10_000,
    memoryMb: 512,
    outputMaxBytes: 64 * 1024,
    concurrency: 4,
    spawnAs: testSpawnAs,
    // the sandbox as production has it on this host: its cgroups and its seccomp filter
    cgroups: await hostCgroups,
    seccomp: seccompFilterHere,
    ...options.runner,
  });
  const logger = createLogger("tool-runner-test", "silent");
  const deps: ToolDependencies = { sandbox, manifests: new ManifestStore({ sandbox, logger, quota: options.quota ?? fixtureQuota }), replyBudget: () => 1024 * 1024 - 4096, logger, scripts: runner };
  return {
    base,
    project,
    outside,
    output,
    session,
    sessionId: "s1",
    sandbox,
    runner,
    deps,
    async plant(relative, content) {
      const file = path.join(project, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, { mode: 0o644 });
      return file;
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
