import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManifestStore } from "../manifest/manifest-store.js";
import { createSandboxFixture, fixtureQuota, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { listFilesTool } from "./list-files-tool.js";
import { jsonBytes } from "./reply-budget.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: SandboxFixture;
beforeEach(async () => {
  fixture = await createSandboxFixture();
  for (let index = 0; index < 40; index++) await writeFile(path.join(fixture.bundle, `file-${index}.md`), "x");
});
afterEach(() => fixture.cleanup());

describe("listFilesTool", () => {
  it("drops entries until the reply fits the budget, and says it was truncated", async () => {
    const deps = { sandbox: fixture.sandbox, manifests: new ManifestStore({ sandbox: fixture.sandbox, logger, quota: fixtureQuota }), replyBudget: () => 600, logger };
    const reply = await listFilesTool({ path: "{bundle-root}" }, fixture.context, deps);
    expect(reply).toMatchObject({ success: true, path: "{bundle-root}", truncated: true });
    expect(jsonBytes(reply)).toBeLessThanOrEqual(600);
    expect((reply["entries"] as unknown[]).length).toBeGreaterThan(0);
  });
});
