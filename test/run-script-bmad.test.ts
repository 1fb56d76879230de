import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { scratchTextForModel, runScriptTool } from "@agent-orchestrator/tool-runner";
import { createScriptFixture, type ScriptFixture } from "@agent-orchestrator/tool-runner/testing";

// BMAD 6.12's own scripts (docs/scripts.md), run through run_script on a copy of a real install (the cache is never written).
let fixture: ScriptFixture;
beforeAll(async () => {
  fixture = await createScriptFixture({ copyFrom: await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }) });
}, 300_000);
afterAll(() => fixture.cleanup());

const context = { session_id: "s1", project_id: "p1", user: "alice", agent_id: "pm", bundle_path: ".claude/skills/bmad-agent-pm" };
let calls = 0;
const run = (command: string) => runScriptTool({ command }, context, fixture.deps, { call_id: `run1:1:${++calls}` });

describe("run_script on a real BMAD 6.12.0 install", () => {
  it("memlog.py init writes {session-folder}/prd-run/.memlog.md and append adds an entry to it", async () => {
    const init = await run('uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/prd-run --field topic="X"');
    expect(init).toMatchObject({ success: true, exit_code: 0, stderr: "", files_written: ["{session-folder}/prd-run/.memlog.md"] });
    expect(JSON.parse(init["stdout"] as string)).toMatchObject({ ok: true, memlog: "{session-folder}/prd-run/.memlog.md", entries: 0 });

    const append = await run('uv run {project-root}/_bmad/scripts/memlog.py append --workspace {session-folder}/prd-run --type decision --text "lead with one account"');
    expect(append).toMatchObject({ success: true, files_written: ["{session-folder}/prd-run/.memlog.md"] });
    const memlog = await fixture.stored(fixture.space("session"), "prd-run/.memlog.md");
    expect(memlog).toContain("topic: X");
    expect(memlog).toContain("- (decision) lead with one account");

    // each run that changed it is a revision of its own, by the user, the chat and the agent
    const revisions = await fixture.files.revisions(fixture.space("session"), "prd-run/.memlog.md");
    expect(revisions.map((revision) => [revision.revision, revision.author.user, revision.author.session_id, revision.author.agent_id])).toEqual([
      [2, "alice", "s1", "pm"],
      [1, "alice", "s1", "pm"],
    ]);
  });

  it("memlog.py init a second time fails with the script's own message, naming no host path", async () => {
    const init = "uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/init-twice";
    expect(await run(init)).toMatchObject({ success: true, exit_code: 0 });
    const again = await run(init);
    expect(again).toMatchObject({ success: false, error: { code: "SCRIPT_FAILED" }, exit_code: 2 });
    expect(again["stderr"]).toContain("{session-folder}/init-twice/.memlog.md already exists");
    expect(JSON.stringify(again)).not.toContain(fixture.base);
  });

  it("resolve_customization.py reads the skill's customization from the read-only install", async () => {
    const result = await run("python3 {project-root}/_bmad/scripts/resolve_customization.py --skill {project-root}/.claude/skills/bmad-agent-pm --key agent");
    expect(result).toMatchObject({ success: true, exit_code: 0 });
    expect(result["stdout"]).toContain("John");
  });

  it("render_skill.py runs offline and publishes into the session's scratch place, which read_file can reach", async () => {
    const result = await run(
      'uv run --no-cache "{project-root}/_bmad/scripts/render_skill.py" --project-root "{project-root}" --skill "{project-root}/.claude/skills/bmad-build"',
    );
    expect(result).toMatchObject({ success: true, exit_code: 0 });
    const entry = /^read and follow (\{session-folder\}\/\.bmad-scratch\/_bmad\/render\/bmad-build\/\S+\/workflow\.md)$/m.exec(result["stdout"] as string)?.[1];
    expect(entry).toBeDefined();
    expect(result["files_written"]).toContain(entry);
    const read = await fixture.sandbox.read({ session_id: "s1", project_id: "p1" }, entry ?? "");
    expect(read.content.length).toBeGreaterThan(0);
    // the rendered skill links its own files by the paths it saw in the sandbox; the model gets them as virtual paths
    const forModel = scratchTextForModel(entry ?? "", read.content);
    expect(forModel).not.toContain("/sandbox/");
  });
});
