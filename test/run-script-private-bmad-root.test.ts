import { stat } from "node:fs/promises";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startScriptRunner, type ScriptSettings, runScriptTool } from "@agent-orchestrator/tool-runner";
import { createScriptFixture, type ScriptFixture } from "@agent-orchestrator/tool-runner/testing";

// The README's `BMAD_ROOT=~/my-project` under a private home (0700, Debian's and Ubuntu's default): a root
// tool-runner's sandbox users cannot walk to it, and run_script still runs BMAD's scripts (docs/scripts.md).
const settings: ScriptSettings = {
  SCRIPTS: "auto",
  SCRIPT_TIMEOUT_MS: 30_000,
  SCRIPT_MEMORY_MB: 512,
  SCRIPT_OUTPUT_MAX_BYTES: 65_536,
  SCRIPT_CONCURRENCY: 4,
  SCRIPT_CONCURRENCY_PER_USER: 2,
  SCRIPT_PROCESSES: 64,
  SCRIPT_DISK_MB: 64,
  SCRIPT_UID_BASE: 64_100,
};
let fixture: ScriptFixture;
beforeAll(async () => {
  fixture = await createScriptFixture({ copyFrom: await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }), privateBase: true });
}, 300_000);
afterAll(() => fixture.cleanup());

describe("run_script with BMAD_ROOT under a 0700 folder", () => {
  it("turns scripts on and runs BMAD 6.12's memlog.py", async () => {
    // the folder above BMAD_ROOT is private; as root (testSpawnAs), the sandbox's host users may not walk through it
    expect((await stat(fixture.base)).mode & 0o777).toBe(0o700);
    const scripts = await startScriptRunner({ settings, sandbox: fixture.sandbox, files: fixture.files, logger: createLogger("tool-runner-test", "silent") });
    expect(scripts).toBeDefined();
    const context = { session_id: "s1", project_id: "p1", user: "alice", agent_id: "pm", bundle_path: ".claude/skills/bmad-agent-pm" };
    const deps = { ...fixture.deps, scripts };
    const init = await runScriptTool({ command: 'uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/prd-run --field topic="X"' }, context, deps, { call_id: "run1:1:1" });
    expect(init).toMatchObject({ success: true, exit_code: 0, stderr: "", files_written: ["{session-folder}/prd-run/.memlog.md"] });
    const append = await runScriptTool({ command: 'uv run {project-root}/_bmad/scripts/memlog.py append --workspace {session-folder}/prd-run --type decision --text "private home"' }, context, deps, { call_id: "run1:1:2" });
    expect(append).toMatchObject({ success: true, exit_code: 0 });
    expect(await fixture.stored(fixture.space("session"), "prd-run/.memlog.md")).toContain("- (decision) private home");
  });
});
