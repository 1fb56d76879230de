import type { FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { searchLimits, searchViewFiles } from "./search-view-files.js";

const project: FileSpaceRef = { kind: "project", id: "p1" };
let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture();
  for (let index = 0; index < 6; index++) await fixture.files.write(project, `docs/f-${index}.md`, "needle\nneedle\n", fixture.author);
});
afterEach(() => fixture.cleanup());

describe("searchViewFiles", () => {
  it("stops sending files at the hit bound and counts the files it did not search", async () => {
    const outcome = await searchViewFiles(fixture.sandbox, fixture.context(), { pattern: "needle", path: "docs" }, { ...searchLimits, maxHits: 3, batchFiles: 1 });
    expect(outcome).toMatchObject({ stoppedBy: "hits", truncated: true });
    expect(outcome.hits).toHaveLength(3);
    expect(outcome.notSearched).toBeGreaterThan(0);
    expect(outcome.filesSearched + outcome.notSearched).toBe(6);
  });

  it("returns what it found when its time is up", async () => {
    const outcome = await searchViewFiles(fixture.sandbox, fixture.context(), { pattern: "needle", path: "docs" }, { ...searchLimits, timeMs: -1 });
    expect(outcome).toMatchObject({ stoppedBy: "time", filesSearched: 0, notSearched: 6, hits: [] });
  });

  it("searches every file when the bounds are not reached", async () => {
    const outcome = await searchViewFiles(fixture.sandbox, fixture.context(), { pattern: "needle", path: "docs" });
    expect(outcome).toMatchObject({ filesSearched: 6, filesMatched: 6, truncated: false, notSearched: 0 });
    expect(outcome.stoppedBy).toBeUndefined();
    expect(outcome.hits).toHaveLength(12);
  });
});
