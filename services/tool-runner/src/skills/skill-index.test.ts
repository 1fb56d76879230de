import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";
import { SkillIndex } from "./skill-index.js";

let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture({ "_bmad/bmm/a/b/c/d/too-deep/SKILL.md": "deep\n", "_bmad/bmm/a/b/c/within/SKILL.md": "ok\n" });
});
afterEach(() => fixture.cleanup());

describe("SkillIndex", () => {
  it("indexes tool-folder skills and tree skills down to the search depth", async () => {
    const index = new SkillIndex(fixture.sandbox);
    expect(await index.names()).toEqual(["tidy-desk", "within"]);
    expect(await index.find("within")).toMatchObject({ virtualPath: "{project-root}/_bmad/bmm/a/b/c/within" });
  });

  it("keeps its list while fresh and looks again for a missing name, at most once a second", async () => {
    let now = 0;
    const index = new SkillIndex(fixture.sandbox, () => now);
    expect(await index.find("tidy-desk")).toBeDefined();
    await mkdir(path.join(fixture.project, ".claude/skills/new-one"));
    await writeFile(path.join(fixture.project, ".claude/skills/new-one/SKILL.md"), "new\n");
    expect(await index.find("new-one")).toBeUndefined();
    now = 1000;
    expect(await index.find("new-one")).toMatchObject({ name: "new-one" });
  });
});
