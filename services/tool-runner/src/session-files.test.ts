import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManifestStore } from "./manifest/manifest-store.js";
import { listSessionFiles, readSessionFile } from "./session-files.js";
import { createSandboxFixture, fixtureQuota, type SandboxFixture } from "./testing/sandbox-fixture.js";

const logger = createLogger("tool-runner-test", "silent");
let fixture: SandboxFixture;
let deps: Parameters<typeof listSessionFiles>[0];
beforeEach(async () => {
  fixture = await createSandboxFixture();
  deps = { sandbox: fixture.sandbox, manifests: new ManifestStore({ sandbox: fixture.sandbox, logger, quota: fixtureQuota }), replyBudget: () => 100_000 };
});
afterEach(() => fixture.cleanup());

/** A manifest as one written before names were checked: a script's files recorded whatever their names. */
async function legacyManifest(files: string[]): Promise<void> {
  await mkdir(fixture.session, { recursive: true });
  for (const file of files) await writeFile(path.join(fixture.session, file), "x");
  const manifest = {
    id: "s1",
    agent: "coach",
    bundle: "studio",
    owner: "alice",
    status: "idle",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    workflows: [],
    files: files.map((file) => ({ path: `{session-folder}/${file}`, size: 1, written_at: "2026-01-01T00:00:00.000Z" })),
  };
  await writeFile(path.join(fixture.session, "manifest.json"), JSON.stringify(manifest));
}

describe("the session files API (docs/security.md case 142)", () => {
  it("lists only paths that can be read back, and counts the others, in `files` and in the manifest alike", async () => {
    await legacyManifest(["brief.md", "evil\u001b[31m.md", "rtl\u202Etxt.md", "{x}.md"]);
    const reply = await listSessionFiles(deps, { session_id: "s1", owner: "alice" });
    if (!reply.success) throw new Error("listing failed");
    expect(reply.files.map((file) => file.path)).toEqual(["{session-folder}/brief.md"]);
    expect(reply.manifest.files).toEqual(reply.files);
    expect(reply.unservable_names).toBe(3);
    for (const file of reply.files) {
      await expect(readSessionFile(deps, { session_id: "s1", owner: "alice", path: file.path })).resolves.toMatchObject({ success: true, path: file.path });
    }
  });

  it("says nothing was left out when every path can be read", async () => {
    await legacyManifest(["brief.md"]);
    expect(await listSessionFiles(deps, { session_id: "s1", owner: "alice" })).toMatchObject({ success: true, unservable_names: 0 });
  });
});
