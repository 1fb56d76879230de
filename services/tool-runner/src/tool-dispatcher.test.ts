import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createLogger, type ToolResult } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManifestStore } from "./manifest/manifest-store.js";
import { createSandbox } from "./sandbox/index.js";
import { ScriptRunner } from "./scripts/index.js";
import { fixtureQuota } from "./testing/sandbox-fixture.js";
import { createScriptFixture, testSpawnAs, type ScriptFixture } from "./testing/script-fixture.js";
import { ToolDispatcher } from "./tool-dispatcher.js";

const logger = createLogger("tool-runner-test", "silent");
const context = { session_id: "s1", bundle_path: ".claude/skills/demo" };
const memlog = "python3 {project-root}/_bmad/scripts/memlog.py append {session-folder}/memlog.md decided";

let fixture: ScriptFixture;
/** Two tool-runner replicas: each its own sandbox, manifest store, script runner and cache, over one output root. */
let replicas: [ToolDispatcher, ToolDispatcher];

beforeEach(async () => {
  fixture = await createScriptFixture();
  await fixture.plant("_bmad/scripts/memlog.py", "import sys\nwith open(sys.argv[2], 'a') as log:\n    log.write(sys.argv[3] + '\\n')\n");
  const second = await createSandbox({ projectRoot: fixture.project, outputRoot: fixture.output, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 1000 });
  const secondDeps = {
    sandbox: second,
    manifests: new ManifestStore({ sandbox: second, logger, quota: fixtureQuota }),
    replyBudget: () => 1024 * 1024 - 4096,
    logger,
    scripts: new ScriptRunner({ sandbox: second, timeoutMs: 10_000, memoryMb: 512, outputMaxBytes: 64 * 1024, concurrency: 2, spawnAs: testSpawnAs }),
  };
  replicas = [new ToolDispatcher({ deps: fixture.deps, concurrency: 8, logger }), new ToolDispatcher({ deps: secondDeps, concurrency: 8, logger })];
});
afterEach(() => fixture.cleanup());

const call = (replica: ToolDispatcher, tool: "run_script" | "save_output" | "read_file" | "list_files", callId: string, args: unknown): Promise<ToolResult> =>
  replica.call(tool, { call_id: callId, context, arguments: args });

describe("ToolDispatcher idempotency across replicas", () => {
  it("answers a run_script retried on another replica from the first one's record: the memlog line is appended once", async () => {
    const first = await call(replicas[0], "run_script", "run1:1:call_a", { command: memlog });
    expect(first).toMatchObject({ success: true, files_written: ["{session-folder}/memlog.md"] });
    const retried = await call(replicas[1], "run_script", "run1:1:call_a", { command: memlog });
    expect(retried).toEqual(first);
    expect(await readFile(path.join(fixture.session, "memlog.md"), "utf8")).toBe("decided\n");
    const manifest = JSON.parse(await readFile(path.join(fixture.session, "manifest.json"), "utf8")) as { scripts: unknown[] };
    expect(manifest.scripts).toHaveLength(1);
  });

  it("answers a save_output retried on another replica from the record, without writing again", async () => {
    const first = await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/brief.md", content: "v1" });
    await call(replicas[0], "save_output", "run1:1:call_t", { file_path: "{session-folder}/brief.md", content: "v2" });
    expect(await call(replicas[1], "save_output", "run1:1:call_s", { file_path: "{session-folder}/brief.md", content: "v1" })).toEqual(first);
    expect(await readFile(path.join(fixture.session, "brief.md"), "utf8")).toBe("v2");
  });

  it("refuses a call id reused for a different call on another replica with BAD_REQUEST", async () => {
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" });
    const reused = await call(replicas[1], "save_output", "run1:1:call_s", { file_path: "{session-folder}/b.md", content: "b" });
    expect(reused).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
    expect(await readdir(fixture.session)).not.toContain("b.md");
  });

  it("keeps the records out of the model's reach: not listed, not readable, not writable, not in the manifest", async () => {
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" });
    expect(await readdir(path.join(fixture.session, ".tool-calls"))).toHaveLength(1);
    const listing = await call(replicas[1], "list_files", "run1:1:call_l", { path: "{session-folder}" });
    expect(JSON.stringify(listing)).not.toContain(".tool-calls");
    const [record] = await readdir(path.join(fixture.session, ".tool-calls"));
    expect(await call(replicas[1], "read_file", "run1:1:call_r", { file_path: `{session-folder}/.tool-calls/${record}` })).toMatchObject({
      success: false,
      error: { code: "PROTECTED_PATH" },
    });
    expect(await call(replicas[1], "save_output", "run1:1:call_w", { file_path: `{session-folder}/.tool-calls/${record}`, content: "{}" })).toMatchObject({
      success: false,
      error: { code: "PROTECTED_PATH" },
    });
    const manifest = JSON.parse(await readFile(path.join(fixture.session, "manifest.json"), "utf8")) as { files: Array<{ path: string }> };
    expect(manifest.files.map((file) => file.path)).toEqual(["{session-folder}/a.md"]);
  });

  it("gives a script no way to change the records", async () => {
    await call(replicas[0], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" });
    await fixture.plant(
      "_bmad/scripts/forge.py",
      "import os\nprint(os.path.exists('.tool-calls'))\nos.makedirs('.tool-calls')\nopen('.tool-calls/run1-1-call_s.json', 'w').write('{}')\n",
    );
    const forged = await call(replicas[0], "run_script", "run1:1:call_f", { command: "python3 {project-root}/_bmad/scripts/forge.py" });
    // the records are not in the script's copy of the session, and what it writes under their name is not kept
    expect(forged).toMatchObject({ success: true, stdout: "False\n", files_written: [], files_not_kept: [expect.objectContaining({ reason: "a protected or system name" })] });
    expect(await call(replicas[1], "save_output", "run1:1:call_s", { file_path: "{session-folder}/a.md", content: "a" })).toMatchObject({
      success: true,
      path: "{session-folder}/a.md",
    });
  });
});
