import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectProjectLayout } from "../sandbox/project-layout.js";
import { InstalledFiles, installedFilesLimits } from "./installed-files.js";

let base: string;
let project: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-installed-index-")));
  project = path.join(base, "P");
  const files = {
    "_bmad/bmm/config.yaml": "project_name: Demo\n",
    "_bmad/bmm/workflows/prd/steps/step-01.md": "# Step\n",
    "_bmad/bmm/.env": "TOKEN=1\n",
    "_bmad/bmm/.git/config": "[core]\n",
    "_bmad/bmm/keys/deploy.pem": "not a key\n",
    "_bmad/bmm/report\u001b[31m.md": "a name the tools cannot open\n",
    "_bmad/bmm/tools/node_modules/left-pad/index.js": "module.exports = 1;\n",
    ".claude/skills/tidy/SKILL.md": "---\nname: tidy\n---\n",
    "src/app.ts": "the project's own file, not installed\n",
    "../outside/secret": "TOP SECRET\n",
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(project, file)), { recursive: true });
    await writeFile(path.join(project, file), content);
  }
});
afterEach(() => rm(base, { recursive: true, force: true }));

const relativeFiles = async (index: InstalledFiles) => (await index.list()).files.map((file) => path.relative(project, file.lexical)).sort();

describe("InstalledFiles", () => {
  it("indexes the BMAD trees and skill folders with size and modification time: no protected name, no unopenable name, no node_modules, nothing else of the project", async () => {
    const index = new InstalledFiles(() => detectProjectLayout(project));
    expect(await relativeFiles(index)).toEqual([".claude/skills/tidy/SKILL.md", "_bmad/bmm/config.yaml", "_bmad/bmm/workflows/prd/steps/step-01.md"]);
    const config = (await index.list()).files.find((file) => file.lexical.endsWith("config.yaml"));
    expect(config).toMatchObject({ real: path.join(project, "_bmad/bmm/config.yaml"), size: 19, mtimeMs: expect.any(Number) });
  });

  it("follows a symlink only into an installed root, lists FIFOs never, and does not loop on a link to a parent", async () => {
    await symlink(path.join(base, "outside"), path.join(project, "_bmad/bmm/escape"));
    await symlink(path.join(base, "outside/secret"), path.join(project, "_bmad/bmm/secret.md"));
    await symlink(path.join(project, ".claude/skills/tidy"), path.join(project, "_bmad/bmm/tidy-link"));
    await symlink(path.join(project, "_bmad"), path.join(project, "_bmad/bmm/loop"));
    execFileSync("mkfifo", [path.join(project, "_bmad/bmm/pipe")]);
    const files = await relativeFiles(new InstalledFiles(() => detectProjectLayout(project)));
    expect(files.filter((file) => /secret|escape|pipe/.test(file))).toEqual([]);
    expect(files).toContain("_bmad/bmm/tidy-link/SKILL.md");
    // a link to a folder above it is not entered: the walk ends
    expect(files.some((file) => file.includes("loop/"))).toBe(false);
    const real = (await new InstalledFiles(() => detectProjectLayout(project)).list()).files.find((file) => file.lexical.endsWith("tidy-link/SKILL.md"))?.real;
    expect(real).toBe(path.join(project, ".claude/skills/tidy/SKILL.md"));
  });

  it("stops at its entry bound and says the index is incomplete (a hostile install cannot take the memory)", async () => {
    execFileSync("sh", ["-c", 'seq 1 300 | sed "s/^/f/" | xargs touch'], { cwd: path.join(project, "_bmad/bmm") });
    const index = new InstalledFiles(() => detectProjectLayout(project), { ...installedFilesLimits, maxEntries: 100 });
    const list = await index.list();
    expect(list.truncated).toBe(true);
    expect(list.files.length).toBeLessThanOrEqual(100);
  });

  it("is kept until it is older than its age limit, or the layout's roots change", async () => {
    let now = 1_000_000;
    let layout = await detectProjectLayout(project);
    const index = new InstalledFiles(async () => layout, installedFilesLimits, () => now);
    expect(await relativeFiles(index)).toHaveLength(3);
    await writeFile(path.join(project, "_bmad/bmm/new.md"), "new\n");
    expect(await relativeFiles(index)).toHaveLength(3);
    now += installedFilesLimits.maxAgeMs;
    expect(await relativeFiles(index)).toContain("_bmad/bmm/new.md");

    await mkdir(path.join(project, ".cursor/skills/sweep"), { recursive: true });
    await writeFile(path.join(project, ".cursor/skills/sweep/SKILL.md"), "---\nname: sweep\n---\n");
    expect(await relativeFiles(index)).not.toContain(".cursor/skills/sweep/SKILL.md");
    layout = await detectProjectLayout(project);
    expect(await relativeFiles(index)).toContain(".cursor/skills/sweep/SKILL.md");
  });
});
