import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expandGlob, hasGlob } from "./fact-glob.js";

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "fact-glob-")));
  for (const file of ["docs/a.md", "docs/b.txt", "docs/deep/c/project-context.md", "_bmad/project-context.md", "src/project-context.md", "docs/node_modules/x/project-context.md", "docs/.env.md", "outside/x.md"]) {
    await mkdir(path.dirname(path.join(root, "P", file)), { recursive: true });
    await writeFile(path.join(root, "P", file), "x");
  }
  await symlink(path.join(root, "P/outside"), path.join(root, "P/docs/link"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const project = () => path.join(root, "P");
const readable = () => [path.join(project(), "docs"), path.join(project(), "_bmad")];

describe("expandGlob", () => {
  it("matches * and ** within the readable roots only, in byte order", async () => {
    expect((await expandGlob(project(), ["docs", "*.md"], readable())).files).toEqual([path.join(project(), "docs/a.md")]);
    const all = await expandGlob(project(), ["**", "project-context.md"], readable());
    expect(all.files).toEqual([path.join(project(), "_bmad/project-context.md"), path.join(project(), "docs/deep/c/project-context.md")]);
  });

  it("skips node_modules, protected names and links", async () => {
    const all = await expandGlob(project(), ["docs", "**", "*"], readable());
    expect(all.files.map((file) => path.relative(project(), file))).toEqual(["docs/a.md", "docs/b.txt", "docs/deep/c/project-context.md"]);
  });

  it("matches no name the tools could not open, so no note names one (docs/security.md case 142)", async () => {
    await writeFile(path.join(project(), "docs/evil\u001b[31m.md"), "x");
    await writeFile(path.join(project(), "docs/rtl\u202Emd.txt"), "x");
    expect((await expandGlob(project(), ["docs", "*"], readable())).files).toEqual([path.join(project(), "docs/a.md"), path.join(project(), "docs/b.txt")]);
  });

  it("finds nothing outside the readable roots (/etc/*)", async () => {
    expect((await expandGlob("/etc", ["*"], readable())).files).toEqual([]);
    expect((await expandGlob(project(), ["src", "*"], readable())).files).toEqual([]);
  });

  it("stops at the file and entry limits and says so", async () => {
    const limited = await expandGlob(project(), ["**", "*"], readable(), { maxFiles: 2, maxEntries: 1000, maxDepth: 8 });
    expect(limited).toMatchObject({ limited: true });
    expect(limited.files).toHaveLength(2);
    expect((await expandGlob(project(), ["**", "*"], readable(), { maxFiles: 20, maxEntries: 3, maxDepth: 8 })).limited).toBe(true);
  });

  it("knows glob segments", () => {
    expect(["*.md", "a?", "[ab].md"].every(hasGlob)).toBe(true);
    expect(hasGlob("plain.md")).toBe(false);
  });
});
