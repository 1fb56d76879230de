import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createLogger, SessionManifest } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox } from "../sandbox/index.js";
import { createSandboxFixture, fixtureLimits, fixtureQuota, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { ManifestStore, type ManifestSeed } from "./manifest-store.js";

const logger = createLogger("tool-runner-test", "silent");
const seed: ManifestSeed = { agent: "", bundle: "bmad/custom/bundles/studio", owner: "", status: "running" };
let fixture: SandboxFixture;
let store: ManifestStore;

beforeEach(async () => {
  fixture = await createSandboxFixture();
  store = new ManifestStore({ sandbox: fixture.sandbox, logger, quota: fixtureQuota });
});
afterEach(() => fixture.cleanup());

async function manifestOnDisk(sessionId = "s1"): Promise<SessionManifest> {
  return SessionManifest.parse(JSON.parse(await readFile(path.join(fixture.output, sessionId, "manifest.json"), "utf8")));
}

describe("ManifestStore", () => {
  it("creates the session folder and manifest, then updates it keeping created_at", async () => {
    const created = await store.update({ session_id: "s1", agent: "analyst", bundle: "bmm", owner: "alice", status: "running" });
    expect(created).toMatchObject({ id: "s1", agent: "analyst", bundle: "bmm", owner: "alice", status: "running", files: [], workflows: [] });
    const updated = await store.update({ session_id: "s1", agent: "analyst", bundle: "bmm", owner: "alice", status: "completed" });
    expect(updated.status).toBe("completed");
    expect(updated.created_at).toBe(created.created_at);
    expect(await manifestOnDisk()).toEqual(updated);
  });

  it("records a file once per path, updating size and time on a rewrite", async () => {
    await store.recordFile("s1", seed, { path: "{session-folder}/a.md", size: 1, written_at: "2026-01-01T00:00:00.000Z" });
    await store.recordFile("s1", seed, { path: "{session-folder}/a.md", size: 7, written_at: "2026-01-02T00:00:00.000Z" });
    expect((await manifestOnDisk()).files).toEqual([{ path: "{session-folder}/a.md", size: 7, written_at: "2026-01-02T00:00:00.000Z" }]);
  });

  it("seeds a manifest created by a file write, and keeps the files when the orchestrator describes the session", async () => {
    await store.recordFile("s1", seed, { path: "{session-folder}/a.md", size: 1, written_at: "t" });
    const manifest = await store.update({ session_id: "s1", agent: "analyst", bundle: "bmm", owner: "alice", status: "running" });
    expect(manifest.files).toHaveLength(1);
    expect(manifest.agent).toBe("analyst");
  });

  it("loses no update when two stores on the same output root record 200 files at once", async () => {
    const other = new ManifestStore({
      sandbox: await createSandbox({ projectRoot: fixture.project, outputRoot: fixture.output, ...fixtureLimits }),
      logger,
      quota: fixtureQuota,
    });
    await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 ? store : other).recordFile("s1", seed, { path: `{session-folder}/f${index}.md`, size: index, written_at: "t" }),
      ),
    );
    const files = (await manifestOnDisk()).files;
    expect(files).toHaveLength(200);
    expect(new Set(files.map((file) => file.path)).size).toBe(200);
  });

  it("records workflows in the order they started", async () => {
    await store.recordWorkflow("s1", seed, { path: "{bundle-root}/workflows/a/workflow.yaml", started_at: "1" });
    await store.recordWorkflow("s1", seed, { path: "{bundle-root}/workflows/b/workflow.yaml", started_at: "2" });
    expect((await manifestOnDisk()).workflows.map((workflow) => workflow.started_at)).toEqual(["1", "2"]);
  });

  it("starts over from an unreadable manifest instead of failing the session", async () => {
    await mkdir(path.join(fixture.output, "s1"), { recursive: true });
    await writeFile(path.join(fixture.output, "s1", "manifest.json"), "{not json");
    await store.recordFile("s1", seed, { path: "{session-folder}/a.md", size: 1, written_at: "t" });
    expect((await manifestOnDisk()).files).toHaveLength(1);
  });

  it("reads a manifest, and undefined for a session that has none (without creating its folder)", async () => {
    expect(await store.read("nobody")).toBeUndefined();
    await store.update({ session_id: "s1", agent: "a", bundle: "b", owner: "o", status: "idle" });
    expect((await store.read("s1"))?.owner).toBe("o");
  });
});
