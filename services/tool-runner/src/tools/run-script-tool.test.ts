import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createScriptFixture, type ScriptFixture } from "../testing/script-fixture.js";
import { jsonBytes } from "./reply-budget.js";
import { runScriptTool } from "./run-script-tool.js";

let fixture: ScriptFixture;
beforeEach(async () => {
  fixture = await createScriptFixture();
});
afterEach(() => fixture.cleanup());
const context = { session_id: "s1", bundle_path: "_bmad" };

describe("runScriptTool", () => {
  it("answers SCRIPTS_DISABLED with what the model should do instead when scripts are off", async () => {
    const deps = { ...fixture.deps, scripts: undefined };
    await expect(runScriptTool({ command: "python3 {project-root}/_bmad/scripts/x.py" }, context, deps)).rejects.toMatchObject({
      code: "SCRIPTS_DISABLED",
      message: expect.stringContaining("by hand as the skill's fallback says"),
    });
  });

  it("cuts stdout and stderr further when the reply would not fit the connection's max_payload", async () => {
    await fixture.plant("_bmad/scripts/noisy.py", "import sys\nprint('o' * 50000)\nprint('e' * 50000, file=sys.stderr)\n");
    const deps = { ...fixture.deps, replyBudget: () => 20_000 };
    const reply = await runScriptTool({ command: "python3 {project-root}/_bmad/scripts/noisy.py" }, context, deps);
    expect(reply).toMatchObject({ success: true, exit_code: 0 });
    expect(jsonBytes(reply)).toBeLessThanOrEqual(20_000);
    expect((reply["stdout"] as string).length).toBeGreaterThan(0);
  });

  it("answers QUOTA_EXCEEDED for a run that takes the session over SESSION_MAX_FILES: the files it created are removed, the one it changed is kept", async () => {
    await fixture.cleanup();
    fixture = await createScriptFixture({ quota: { maxFiles: 2, maxBytes: 1 << 20 } });
    await fixture.plant("_bmad/scripts/log.py", "import sys\nfor name in sys.argv[1:]:\n    open(name, 'a').write('line\\n')\n");
    const run = (names: string) => runScriptTool({ command: `python3 {project-root}/_bmad/scripts/log.py ${names}` }, context, fixture.deps);
    await expect(run("a.txt")).resolves.toMatchObject({ success: true, files_written: ["{session-folder}/a.txt"] });
    const reply = await run("a.txt b.txt c.txt");
    expect(reply).toMatchObject({
      success: false,
      error: { code: "QUOTA_EXCEEDED" },
      exit_code: 0,
      files_written: ["{session-folder}/a.txt"],
      files_removed: ["{session-folder}/b.txt", "{session-folder}/c.txt"],
    });
    expect((await readdir(fixture.session)).filter((name) => name.endsWith(".txt"))).toEqual(["a.txt"]);
    expect(await readFile(path.join(fixture.session, "a.txt"), "utf8")).toBe("line\nline\n");
    const manifest = JSON.parse(await readFile(path.join(fixture.session, "manifest.json"), "utf8")) as { files: Array<{ path: string; size: number }> };
    expect(manifest.files).toEqual([expect.objectContaining({ path: "{session-folder}/a.txt", size: 10 })]);
  });
});
