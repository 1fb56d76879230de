import { chmod, cp, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef, type ToolContext } from "@agent-orchestrator/shared/wire";
import { createSandbox, type Sandbox } from "../sandbox/index.js";
import { ScriptRunner, type ScriptRunnerOptions } from "../scripts/index.js";
import { detectSandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { seccompArchitecture, seccompFilter } from "../os-sandbox/seccomp-filter.js";
import { slotUsers } from "../scripts/start-script-runner.js";
import type { FileStore } from "../store/file-store.js";
import type { SpaceQuota } from "../store/space-quota.js";
import type { ToolDependencies } from "../tools/index.js";
import { openTestFileStore, type TestFileStore } from "./file-store-fixture.js";

/** A throw-away BMAD install, a file store of its own and a script runner for tests. */
export interface ScriptFixture {
  base: string;
  /** BMAD_ROOT: a copy of a real install, or a small `_bmad/` + `.claude/skills/demo/` tree */
  project: string;
  /** a sibling of the project holding `secret` */
  outside: string;
  /** the projects' and chats' own files */
  files: FileStore;
  /** the store's connection and bucket prefix (a second replica opens the same buckets) */
  store: TestFileStore;
  /** chat `s1` of project `p1`, run by `alice` with the agent `pm`, bundle `_bmad` */
  context: ToolContext;
  sandbox: Sandbox;
  runner: ScriptRunner;
  deps: ToolDependencies;
  /** writes a file into the install copy (never into the install cache) */
  plant(relative: string, content: string): Promise<string>;
  /** the project's (or a chat's) space: `project` is `p1`, `session` is the chat `id` (default `s1`) */
  space(kind: FileSpaceRef["kind"], id?: string): FileSpaceRef;
  /** the latest content of a stored file as text, or undefined when there is none */
  stored(space: FileSpaceRef, filePath: string): Promise<string | undefined>;
  cleanup(): Promise<void>;
}

/**
 * When the tests run as root, bwrap starts as an unprivileged host user per slot, as a root tool-runner does
 * (SCRIPT_UID_BASE). Those users reach the project directly when they can walk to it (docs/security.md
 * "Scripts"), so the fixture's base folder is opened to others unless `privateBase` keeps it 0700, as a
 * private home is.
 */
export const testSpawnAs = process.getuid?.() === 0 ? slotUsers(64_100) : undefined;
const hostCgroups = detectSandboxCgroups();
const architecture = seccompArchitecture();
const seccompFilterHere = architecture ? seccompFilter(architecture) : undefined;

/** Builds the install (copying `copyFrom` when given), a secret outside it, a file store and a runner. */
export async function createScriptFixture(
  options: {
    copyFrom?: string;
    runner?: Partial<Omit<ScriptRunnerOptions, "sandbox" | "files">>;
    quotas?: { project?: SpaceQuota; session?: SpaceQuota };
    /** keep the base folder 0700 (mkdtemp's), so the sandbox's users cannot walk to the project */
    privateBase?: boolean;
  } = {},
): Promise<ScriptFixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-scripts-")));
  if (testSpawnAs && options.privateBase !== true) await chmod(base, 0o755);
  const project = path.join(base, "project");
  const outside = path.join(base, "outside");
  if (options.copyFrom) await cp(options.copyFrom, project, { recursive: true });
  for (const folder of ["_bmad/scripts", "_bmad/render", ".claude/skills/demo/scripts", "src"]) await mkdir(path.join(project, folder), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret"), "HOST SECRET 4242\n", { mode: 0o644 });
  await writeFile(path.join(project, "src", "private.txt"), "PROJECT PRIVATE 7373\n");
  const store = await openTestFileStore(options.quotas);
  const { files } = store;
  const sandbox = await createSandbox({ projectRoot: project, files, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 1000 });
  const runner = new ScriptRunner({
    sandbox,
    files,
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
  const deps: ToolDependencies = { sandbox, replyBudget: () => 1024 * 1024 - 4096, logger, scripts: runner };
  return {
    base,
    project,
    outside,
    files,
    store,
    context: { session_id: "s1", project_id: "p1", user: "alice", agent_id: "pm", bundle_path: "_bmad" },
    sandbox,
    runner,
    deps,
    async plant(relative, content) {
      const file = path.join(project, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, { mode: 0o644 });
      return file;
    },
    space: (kind, id) => ({ kind, id: id ?? (kind === "project" ? "p1" : "s1") }),
    async stored(space, filePath) {
      const file = await files.stat(space, filePath);
      return file === undefined ? undefined : new TextDecoder().decode(await files.content(file.sha256));
    },
    async cleanup() {
      await store.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
