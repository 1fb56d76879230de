import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { appErrorOf } from "../testing/app-error-of.js";
import { readFileTool } from "./read-file-tool.js";
import type { ToolDependencies } from "./tool-handler.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: SandboxFixture;
afterEach(() => fixture.cleanup());

const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}\n`).join("");

async function open(replyBudget = 1_000_000): Promise<ToolDependencies> {
  fixture = await createSandboxFixture();
  await fixture.files.write({ kind: "project", id: "p1" }, "docs/long.md", lines, fixture.author);
  return { sandbox: fixture.sandbox, replyBudget: () => replyBudget, logger };
}

const read = (deps: ToolDependencies, args: { offset?: number; limit?: number }) =>
  readFileTool({ file_path: "{project-root}/docs/long.md", ...args }, fixture.toolContext, deps, { call_id: "c1" });

describe("read_file with offset and limit", () => {
  it("returns the lines asked for and says how many the file has", async () => {
    const deps = await open();
    expect(await read(deps, { offset: 10, limit: 3 })).toEqual({
      success: true,
      path: "{project-root}/docs/long.md",
      content: "line 10\nline 11\nline 12\n",
      size: lines.length,
      total_lines: 40,
      start_line: 10,
      end_line: 12,
      truncated: false,
    });
  });

  it("says the total lines of a whole read too, and reads an installed file by lines", async () => {
    const deps = await open();
    expect(await read(deps, {})).toMatchObject({ content: lines, total_lines: 40 });
    const installed = await readFileTool({ file_path: "{bundle-root}/config.yaml", offset: 1, limit: 1 }, fixture.toolContext, deps, { call_id: "c2" });
    expect(installed).toMatchObject({ content: "user_name: Ada\n", total_lines: 1 });
  });

  it("refuses an offset past the end with the file's length", async () => {
    const deps = await open();
    expect((await appErrorOf(read(deps, { offset: 41 }), fixture.base)).message).toContain("it has 40 lines");
  });

  it("cuts a reply that would not fit at a whole line, and says where to read on", async () => {
    const deps = await open(400);
    const reply = await read(deps, { offset: 1 });
    expect(reply).toMatchObject({ truncated: true, start_line: 1 });
    const { end_line: end, note, content } = reply as unknown as { end_line: number; note: string; content: string };
    expect(content.startsWith(lines.slice(0, content.lastIndexOf("\n") + 1))).toBe(true);
    expect(note).toBe(`Cut to fit the reply: read on with offset ${end + 1}.`);
    expect(end).toBeLessThan(40);
  });
});
