import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManifestStore } from "../manifest/manifest-store.js";
import type { SessionQuota } from "../manifest/session-quota.js";
import { createSandbox, isServableName } from "../sandbox/index.js";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { saveOutputTool } from "./save-output-tool.js";
import type { ToolDependencies } from "./tool-handler.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: SandboxFixture;
beforeEach(async () => {
  fixture = await createSandboxFixture();
});
afterEach(() => fixture.cleanup());

function depsWith(quota: SessionQuota, sandbox = fixture.sandbox): ToolDependencies {
  return { sandbox, manifests: new ManifestStore({ sandbox, logger, quota }), replyBudget: () => 1_000_000, logger };
}

const save = (deps: ToolDependencies, name: string, content: string) =>
  saveOutputTool({ file_path: `{session-folder}/${name}`, content }, fixture.context, deps);

async function manifestFiles(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(fixture.session, "manifest.json"), "utf8")) as { files: Array<{ path: string }> };
  return manifest.files.map((file) => file.path).sort();
}

describe("saveOutputTool under the session quota", () => {
  it("refuses the sixth file with SESSION_MAX_FILES=5 and writes nothing, while rewriting an existing file still works", async () => {
    const deps = depsWith({ maxFiles: 5, maxBytes: 1 << 20 });
    for (let index = 1; index <= 5; index++) await save(deps, `f${index}.md`, "five");
    await expect(save(deps, "f6.md", "six")).rejects.toMatchObject({ code: "QUOTA_EXCEEDED", message: expect.stringContaining("may hold 5") });
    expect(await readdir(fixture.session)).not.toContain("f6.md");
    await expect(save(deps, "f3.md", "rewritten")).resolves.toMatchObject({ success: true, size: 9 });
    expect(await readFile(path.join(fixture.session, "f3.md"), "utf8")).toBe("rewritten");
    expect(await manifestFiles()).toEqual(["f1", "f2", "f3", "f4", "f5"].map((name) => `{session-folder}/${name}.md`));
  });

  it("refuses a write that would pass SESSION_MAX_BYTES, and counts a rewrite by its new size only", async () => {
    const deps = depsWith({ maxFiles: 100, maxBytes: 100 });
    await save(deps, "a.md", "a".repeat(60));
    await expect(save(deps, "b.md", "b".repeat(41))).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
    await expect(save(deps, "b.md", "b".repeat(40))).resolves.toMatchObject({ success: true });
    // 60 + 40 = 100: a.md may still be rewritten at 60 bytes or less, not more
    await expect(save(deps, "a.md", "c".repeat(60))).resolves.toMatchObject({ success: true });
    await expect(save(deps, "a.md", "d".repeat(61))).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
    expect(await readFile(path.join(fixture.session, "a.md"), "utf8")).toBe("c".repeat(60));
  });

  it("lets two replicas on one output volume fill the last places exactly, never past the quota", async () => {
    const quota = { maxFiles: 5, maxBytes: 1 << 20 };
    const other = depsWith(quota, await createSandbox({ projectRoot: fixture.project, outputRoot: fixture.output, ...fixtureLimits }));
    const mine = depsWith(quota);
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, index) => save(index % 2 ? mine : other, `r${index}.md`, "x")));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => (outcome as PromiseRejectedResult).reason.code)).toEqual(
      Array(7).fill("QUOTA_EXCEEDED"),
    );
    expect((await readdir(fixture.session)).filter((name) => name.endsWith(".md"))).toHaveLength(5);
    expect(await manifestFiles()).toHaveLength(5);
  });

  it("refuses at write time every name it could not serve back, and reads back every name it accepts (docs/security.md case 141)", async () => {
    const deps = depsWith({ maxBytes: 1 << 20, maxFiles: 100 });
    const candidates = ["plain.md", "..foo.md", "日本語.md", "evil\u001b[31m.md", "del\u007f.md", "c1\u009b.md", "rtl\u202Etxt.md", "iso\u2066.md", "lrm\u200e.md", "a\\b.md", "con", "nul.txt", "dot.", "space ", "{x}.md"];
    const accepted: string[] = [];
    for (const name of candidates) {
      const saved = await save(deps, name, "x").then(
        () => true,
        (error: { code?: string }) => {
          expect(["INVALID_PATH", "UNRESOLVED_VARIABLE"]).toContain(error.code);
          return false;
        },
      );
      if (!saved) continue;
      accepted.push(name);
      expect(isServableName(name)).toBe(true);
      await expect(fixture.sandbox.read(fixture.context, `{session-folder}/${name}`)).resolves.toMatchObject({ content: "x" });
    }
    expect(accepted).toEqual(["plain.md", "..foo.md", "日本語.md"]);
    expect((await readdir(fixture.session)).filter((name) => !name.startsWith("manifest.json")).sort()).toEqual([...accepted].sort());
  });
});
