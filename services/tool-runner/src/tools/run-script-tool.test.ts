import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createScriptFixture, type ScriptFixture } from "../testing/script-fixture.js";
import { jsonBytes } from "../reply-budget.js";
import { runScriptTool } from "./run-script-tool.js";

let fixture: ScriptFixture;
beforeEach(async () => {
  fixture = await createScriptFixture();
});
afterEach(() => fixture.cleanup());

const call = { call_id: "run1:1:call1" };
const run = (command: string) => runScriptTool({ command }, fixture.context, fixture.deps, call);

// writes each `name=text` argument, relative to the working folder ({session-folder}) or absolute
const writer = `import os, sys
for arg in sys.argv[1:]:
    name, text = arg.split("=", 1)
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    open(name, "w").write(text)
`;

describe("runScriptTool", () => {
  it("answers SCRIPTS_DISABLED with what the model should do instead when scripts are off", async () => {
    const deps = { ...fixture.deps, scripts: undefined };
    await expect(runScriptTool({ command: "python3 {project-root}/_bmad/scripts/x.py" }, fixture.context, deps, call)).rejects.toMatchObject({
      code: "SCRIPTS_DISABLED",
      message: expect.stringContaining("by hand as the skill's fallback says"),
    });
  });

  it("cuts stdout and stderr further when the reply would not fit the connection's max_payload", async () => {
    await fixture.plant("_bmad/scripts/noisy.py", "import sys\nprint('o' * 50000)\nprint('e' * 50000, file=sys.stderr)\n");
    const deps = { ...fixture.deps, replyBudget: () => 20_000 };
    const reply = await runScriptTool({ command: "python3 {project-root}/_bmad/scripts/noisy.py" }, fixture.context, deps, call);
    expect(reply).toMatchObject({ success: true, exit_code: 0 });
    expect(jsonBytes(reply)).toBeLessThanOrEqual(20_000);
    expect((reply["stdout"] as string).length).toBeGreaterThan(0);
  });
});

describe("a script over the project's files", () => {
  it("sees the project's own files at their project paths and the chat's at {session-folder}", async () => {
    const alice = { user: "alice" };
    await fixture.files.write(fixture.space("project"), "_bmad-output/planning-artifacts/brief.md", "Mary's brief", alice);
    await fixture.files.write(fixture.space("project"), "docs/architecture.md", "layers", alice);
    await fixture.files.write(fixture.space("session"), "notes.md", "scratch", alice);
    // another chat's scratch space is not this chat's
    await fixture.files.write(fixture.space("session", "s2"), "other.md", "not mine", alice);
    await fixture.plant(
      "_bmad/scripts/look.py",
      "import sys\nfor p in sys.argv[1:]:\n    try:\n        print(p, open(p).read())\n    except OSError as e:\n        print(p, type(e).__name__)\n",
    );
    const reply = await run(
      "python3 {project-root}/_bmad/scripts/look.py {planning_artifacts}/brief.md {project-root}/docs/architecture.md {session-folder}/notes.md other.md",
    );
    expect(reply).toMatchObject({ success: true, files_written: [] });
    expect(reply["stdout"]).toBe(
      [
        "{project-root}/_bmad-output/planning-artifacts/brief.md Mary's brief",
        "{project-root}/docs/architecture.md layers",
        "{session-folder}/notes.md scratch",
        "other.md FileNotFoundError",
        "",
      ].join("\n"),
    );
  });

  it("stores what it writes and deletes as new revisions by the user, chat, agent and tool call, before it answers", async () => {
    await fixture.files.write(fixture.space("project"), "docs/prd.md", "v1", { user: "bob" });
    await fixture.files.write(fixture.space("project"), "docs/old.md", "gone soon", { user: "bob" });
    await fixture.plant(
      "_bmad/scripts/edit.py",
      `import os, sys
root = sys.argv[1]
open(os.path.join(root, "docs/prd.md"), "w").write("v2")
os.makedirs(os.path.join(root, "_bmad-output/implementation-artifacts"))
open(os.path.join(root, "_bmad-output/implementation-artifacts/sprint-status.yaml"), "w").write("epics: []")
os.remove(os.path.join(root, "docs/old.md"))
open("memo.md", "w").write("scratch")
`,
    );
    const reply = await run("python3 {project-root}/_bmad/scripts/edit.py {project-root}");
    expect(reply).toMatchObject({
      success: true,
      files_written: ["{project-root}/_bmad-output/implementation-artifacts/sprint-status.yaml", "{project-root}/docs/prd.md", "{session-folder}/memo.md"],
      files_removed: ["{project-root}/docs/old.md"],
    });
    const author = { user: "alice", session_id: "s1", agent_id: "pm", tool_call_id: "run1:1:call1" };
    expect(await fixture.files.revisions(fixture.space("project"), "docs/prd.md")).toEqual([
      expect.objectContaining({ revision: 2, size: 2, author }),
      expect.objectContaining({ revision: 1, author: { user: "bob" } }),
    ]);
    expect(await fixture.stored(fixture.space("project"), "docs/prd.md")).toBe("v2");
    expect((await fixture.files.read(fixture.space("project"), "docs/prd.md", 1)).content).toEqual(new TextEncoder().encode("v1"));
    expect(await fixture.stored(fixture.space("project"), "_bmad-output/implementation-artifacts/sprint-status.yaml")).toBe("epics: []");
    expect(await fixture.files.revisions(fixture.space("project"), "docs/old.md")).toEqual([
      expect.objectContaining({ revision: 2, deleted: true, author }),
      expect.objectContaining({ revision: 1 }),
    ]);
    expect(await fixture.files.stat(fixture.space("session"), "memo.md")).toMatchObject({ revision: 1, author });
  });

  it("cannot write into an installed BMAD tree or a tool folder: read-only inside, and never stored", async () => {
    await fixture.plant(
      "_bmad/scripts/try_write.py",
      `import os, sys
for name in sys.argv[1:]:
    try:
        os.makedirs(os.path.dirname(name), exist_ok=True)
        open(name, "w").write("x")
        print(name, "written")
    except OSError as error:
        print(name, error.strerror)
`,
    );
    const reply = await run(
      "python3 {project-root}/_bmad/scripts/try_write.py {project-root}/_bmad/scripts/evil.py {project-root}/.claude/skills/demo/SKILL.md {project-root}/.claude/settings.json {project-root}/.bmad-core/agents/x.md {project-root}/docs/ok.md",
    );
    expect(reply["stdout"]).toBe(
      [
        "{project-root}/_bmad/scripts/evil.py Read-only file system",
        "{project-root}/.claude/skills/demo/SKILL.md Read-only file system",
        // written inside, next to the trees, under BMAD's install names: not kept
        "{project-root}/.claude/settings.json written",
        "{project-root}/.bmad-core/agents/x.md written",
        "{project-root}/docs/ok.md written",
        "",
      ].join("\n"),
    );
    expect(reply).toMatchObject({
      success: true,
      files_written: ["{project-root}/docs/ok.md"],
      files_not_kept: [
        { path: "{project-root}/.bmad-core/agents/x.md", reason: "BMAD's install folders are read-only" },
        { path: "{project-root}/.claude/settings.json", reason: "BMAD's install folders are read-only" },
      ],
    });
    expect(existsSync(path.join(fixture.project, "_bmad/scripts/evil.py"))).toBe(false);
    expect(existsSync(path.join(fixture.project, ".claude/settings.json"))).toBe(false);
    expect([...(await fixture.files.index(fixture.space("project"))).files.keys()]).toEqual(["docs/ok.md"]);
  });
});

describe("a script over a quota", () => {
  beforeEach(async () => {
    await fixture.cleanup();
    fixture = await createScriptFixture({ quotas: { project: { maxFiles: 2, maxBytes: 1 << 20 } } });
    await fixture.plant("_bmad/scripts/write.py", writer);
  });

  it("keeps nothing of the space it would take over its quota, and keeps the other space's changes", async () => {
    await fixture.files.write(fixture.space("project"), "docs/a.md", "one", { user: "bob" });
    const reply = await run(
      "python3 {project-root}/_bmad/scripts/write.py {project-root}/docs/a.md=changed {project-root}/docs/b.md=b {project-root}/docs/c.md=c notes.md=kept",
    );
    expect(reply).toMatchObject({
      success: false,
      error: { code: "QUOTA_EXCEEDED", message: expect.stringContaining("None of the script's changes under {project-root} were kept") },
      exit_code: 0,
      files_written: ["{session-folder}/notes.md"],
      files_not_kept: [
        { path: "{project-root}/docs/a.md", reason: expect.stringContaining("quota") },
        { path: "{project-root}/docs/b.md", reason: expect.stringContaining("quota") },
        { path: "{project-root}/docs/c.md", reason: expect.stringContaining("quota") },
      ],
    });
    const project = await fixture.files.index(fixture.space("project"));
    expect([...project.files.keys()]).toEqual(["docs/a.md"]);
    expect(await fixture.stored(fixture.space("project"), "docs/a.md")).toBe("one");
    expect(await fixture.stored(fixture.space("session"), "notes.md")).toBe("kept");
  });

  it("stores a run that stays within the quota", async () => {
    await expect(run("python3 {project-root}/_bmad/scripts/write.py {project-root}/docs/a.md=a {project-root}/docs/b.md=b")).resolves.toMatchObject({
      success: true,
      files_written: ["{project-root}/docs/a.md", "{project-root}/docs/b.md"],
    });
  });
});
