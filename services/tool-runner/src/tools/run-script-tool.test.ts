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
});
