import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";

let fixture: SandboxFixture;
beforeEach(async () => {
  fixture = await createSandboxFixture();
});
afterEach(() => fixture.cleanup());

describe("Sandbox.list", () => {
  it("lists names, types and sizes, sorted, with a virtual path", async () => {
    const result = await fixture.sandbox.list(fixture.context, "{bundle-root}");
    expect(result).toEqual({
      path: "{bundle-root}",
      entries: [
        { name: "config.yaml", type: "file", size: 15 },
        { name: "workflows", type: "directory", size: 0 },
      ],
      truncated: false,
      unservable: 0,
    });
  });

  it("leaves out protected names, FIFOs and symlinks that lead outside; keeps links that stay inside", async () => {
    await mkdir(path.join(fixture.bundle, ".git"));
    await writeFile(path.join(fixture.bundle, ".env"), "K=1");
    execFileSync("mkfifo", [path.join(fixture.bundle, "pipe")]);
    await symlink(path.join(fixture.outside, "secret"), path.join(fixture.bundle, "leak"));
    await symlink(path.join(fixture.bundle, "config.yaml"), path.join(fixture.bundle, "alias.yaml"));
    const names = (await fixture.sandbox.list(fixture.context, "{bundle-root}")).entries.map((entry) => entry.name);
    expect(names).toEqual(["alias.yaml", "config.yaml", "workflows"]);
  });

  it("leaves out and counts the names the tools could not open, so every name listed opens (docs/security.md case 142)", async () => {
    // what the store may hold from before the checks (a migrated session, an old script): controls, bidi
    // overrides, other refused shapes; the sandbox never writes such a name itself
    const refused = ["evil\u001b[31m.md", "rtl\u202Etxt.md", "iso\u2066x.md", "c1\u009b.md", "back\\slash.md", "con", "dot.", "{x}.md", "dir\u001b]0;title\u0007/x.md"];
    for (const name of refused) await fixture.files.write({ kind: "session", id: "s1" }, name, "x", fixture.author);
    await fixture.files.write({ kind: "session", id: "s1" }, "plain.md", "plain", fixture.author);
    await fixture.files.write({ kind: "session", id: "s1" }, "notes/a.md", "a", fixture.author);

    const listing = await fixture.sandbox.list(fixture.context, "{session-folder}");
    expect(listing.entries.map((entry) => entry.name)).toEqual(["notes", "plain.md"]);
    expect(listing.unservable).toBe(refused.length);
    for (const entry of listing.entries) {
      const opened = entry.type === "file" ? fixture.sandbox.read(fixture.context, `{session-folder}/${entry.name}`) : fixture.sandbox.list(fixture.context, `{session-folder}/${entry.name}`);
      await expect(opened).resolves.toMatchObject({ path: `{session-folder}/${entry.name}` });
    }
  });

  it("leaves out and counts the installed names the tools could not open (docs/security.md case 142)", async () => {
    await writeFile(path.join(fixture.bundle, "evil\u001b[31m.md"), "x");
    // a name that is not UTF-8 on disk: Node decodes it with U+FFFD, a name that does not exist
    await writeFile(Buffer.concat([Buffer.from(`${fixture.bundle}/latin1-`), Buffer.from([0xe9]), Buffer.from(".md")]), "x");
    const listing = await fixture.sandbox.list(fixture.context, "{bundle-root}");
    expect(listing.entries.map((entry) => entry.name)).toEqual(["config.yaml", "workflows"]);
    expect(listing.unservable).toBe(2);
  });

  it("counts names it leaves out against LIST_MAX_ENTRIES, so a folder full of them costs no more than a listed one", async () => {
    const many = path.join(fixture.bundle, "many");
    await mkdir(many);
    for (let index = 0; index < fixtureLimits.listMaxEntries + 5; index++) await writeFile(path.join(many, `f${index}\u001b.md`), "x");
    const listing = await fixture.sandbox.list(fixture.context, "{bundle-root}/many");
    expect(listing).toMatchObject({ entries: [], truncated: true, unservable: fixtureLimits.listMaxEntries });
  });

  it("caps a listing of a very large folder and says it was truncated (docs/security.md case 38)", async () => {
    const big = path.join(fixture.bundle, "big");
    await mkdir(big);
    // 100k entries, as in the attack list; created by one shell command to keep the test quick
    execFileSync("sh", ["-c", 'seq 1 100000 | sed "s/^/f/" | xargs touch'], { cwd: big });
    const result = await fixture.sandbox.list(fixture.context, "{bundle-root}/big");
    expect(result.truncated).toBe(true);
    expect(result.entries).toHaveLength(fixtureLimits.listMaxEntries);
  });

  it("lists a folder at depth 50 (docs/security.md case 38)", async () => {
    const deep = "d/".repeat(50);
    await mkdir(path.join(fixture.bundle, deep), { recursive: true });
    const result = await fixture.sandbox.list(fixture.context, `{bundle-root}/${deep}`);
    expect(result).toEqual({ path: `{bundle-root}/${"d/".repeat(49)}d`, entries: [], truncated: false, unservable: 0 });
  });

  it("answers FILE_NOT_FOUND for a missing folder and INVALID_PATH for a file", async () => {
    await expect(fixture.sandbox.list(fixture.context, "{bundle-root}/nope")).rejects.toMatchObject({
      code: "FILE_NOT_FOUND",
      message: "Folder not found: {bundle-root}/nope",
    });
    await expect(fixture.sandbox.list(fixture.context, "{bundle-root}/config.yaml")).rejects.toMatchObject({ code: "INVALID_PATH" });
  });

  it("refuses to list outside the roots or a protected folder", async () => {
    await expect(fixture.sandbox.list(fixture.context, "/etc")).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
    await expect(fixture.sandbox.list(fixture.context, "{project-root}/../outside")).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
    await expect(fixture.sandbox.list(fixture.context, "{session-folder}/../s2")).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
    await expect(fixture.sandbox.list(fixture.context, "{bundle-root}/.git")).rejects.toMatchObject({ code: "PROTECTED_PATH" });
    await expect(fixture.sandbox.list(fixture.context, "{session-folder}/.git")).rejects.toMatchObject({ code: "PROTECTED_PATH" });
  });

  it("lists a custom bundle's {project-root} as the way to its own folder plus the project's files", async () => {
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/prd.md", "p", fixture.author);
    const listing = await fixture.sandbox.list(fixture.context, "{project-root}");
    expect(listing.entries).toEqual([
      { name: "bmad", type: "directory", size: 0 },
      { name: "docs", type: "directory", size: 0 },
    ]);
    // README.md is on disk in BMAD_ROOT, but it is neither installed BMAD nor the project's own: not shown
    expect(JSON.stringify(listing)).not.toContain("README");
  });

  it("lists the stored files of a folder, and an empty scratch space as empty", async () => {
    expect(await fixture.sandbox.list(fixture.context, "{session-folder}")).toEqual({ path: "{session-folder}", entries: [], truncated: false, unservable: 0 });
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/stories/1.md", "one", fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/prd.md", "prd", fixture.author);
    expect((await fixture.sandbox.list(fixture.context, "{project-root}/docs")).entries).toEqual([
      { name: "prd.md", type: "file", size: 3 },
      { name: "stories", type: "directory", size: 0 },
    ]);
    await expect(fixture.sandbox.list(fixture.context, "docs/nope")).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
    await expect(fixture.sandbox.list(fixture.context, "docs/prd.md")).rejects.toMatchObject({ code: "INVALID_PATH" });
  });
});
