import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { listFilesTool } from "./list-files-tool.js";
import { jsonBytes } from "../reply-budget.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: SandboxFixture;
beforeEach(async () => {
  fixture = await createSandboxFixture();
  for (let index = 0; index < 40; index++) await writeFile(path.join(fixture.bundle, `file-${index}.md`), "x");
});
afterEach(() => fixture.cleanup());

describe("listFilesTool", () => {
  it("drops entries until the reply fits the budget, and says it was truncated", async () => {
    const deps = { sandbox: fixture.sandbox, replyBudget: () => 600, logger };
    const reply = await listFilesTool({ path: "{bundle-root}" }, fixture.toolContext, deps, { call_id: "c1" });
    expect(reply).toMatchObject({ success: true, path: "{bundle-root}", truncated: true });
    expect(jsonBytes(reply)).toBeLessThanOrEqual(600);
    expect((reply["entries"] as unknown[]).length).toBeGreaterThan(0);
  });

  it("carries no raw control or bidi character: names the tools cannot open are counted, not listed (docs/security.md case 142)", async () => {
    // names the store may hold from before the checks (a migrated session folder)
    const space = { kind: "session" as const, id: "s1" };
    await fixture.files.write(space, "report\u001b[2J\u001b[31m.md", "x", fixture.author);
    await fixture.files.write(space, "invoice\u202Efdp.exe", "x", fixture.author);
    await fixture.files.write(space, "brief.md", "x", fixture.author);
    const deps = { sandbox: fixture.sandbox, replyBudget: () => 100_000, logger };
    const reply = await listFilesTool({ path: "{session-folder}" }, fixture.toolContext, deps, { call_id: "c2" });
    expect(reply).toMatchObject({ success: true, entries: [{ name: "brief.md", type: "file", size: 1 }], unservable_names: 2 });
    expect(reply["unservable_note"]).toMatch(/^2 name\(s\) here are not listed/);
    // every string of the reply as a client decodes it: none may hold a character that drives a terminal or reorders text
    const strings: string[] = [];
    JSON.stringify(reply, (_key, value: unknown) => (typeof value === "string" ? (strings.push(value), value) : value));
    expect(strings.filter((text) => /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(text))).toEqual([]);
  });
});
