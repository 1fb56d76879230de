import { mkdir, mkdtemp, realpath, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectProjectLayout } from "./project-layout.js";

async function project(): Promise<string> {
  return realpath(await mkdtemp(path.join(tmpdir(), "layout-")));
}

describe("detectProjectLayout", () => {
  it("finds every release's BMAD trees, the tool folders' skills and the knowledge folder", async () => {
    const root = await project();
    for (const folder of ["_bmad/bmm", ".bmad-core/agents", ".claude/skills/bmad-prd", ".agents/skills", "docs", ".git/skills", "src"]) {
      await mkdir(path.join(root, folder), { recursive: true });
    }
    await writeFile(path.join(root, "_bmad/bmm/config.yaml"), 'project_knowledge: "{project-root}/docs"\n');
    const layout = await detectProjectLayout(root);
    expect(layout.trees).toEqual([path.join(root, ".bmad-core"), path.join(root, "_bmad")].sort());
    expect(layout.skillFolders).toEqual([path.join(root, ".agents/skills"), path.join(root, ".claude/skills")].sort());
    expect(layout.knowledge).toEqual([path.join(root, "docs")]);
  });

  it("ignores a knowledge folder that would open the whole project or leaves it", async () => {
    const root = await project();
    await mkdir(path.join(root, "_bmad/bmm"), { recursive: true });
    await mkdir(path.join(root, "_bmad/core"), { recursive: true });
    await writeFile(path.join(root, "_bmad/bmm/config.yaml"), 'project_knowledge: "{project-root}"\n');
    await writeFile(path.join(root, "_bmad/core/config.yaml"), 'project_knowledge: "{project-root}/../elsewhere"\n');
    expect((await detectProjectLayout(root)).knowledge).toEqual([]);
  });

  it("does not follow a skills folder that links out of the project", async () => {
    const root = await project();
    const outside = await project();
    await mkdir(path.join(root, ".claude"), { recursive: true });
    await symlink(outside, path.join(root, ".claude/skills"));
    expect((await detectProjectLayout(root)).skillFolders).toEqual([]);
  });

  it("keeps each folder's lexical path beside its real one, and each module's output variables", async () => {
    const root = await project();
    await mkdir(path.join(root, "installs/current/bmm"), { recursive: true });
    await symlink(path.join(root, "installs/current"), path.join(root, "_bmad"));
    await writeFile(path.join(root, "installs/current/bmm/config.yaml"), 'planning_artifacts: "{project-root}/out/plans"\nproject_knowledge: docs\n');
    await mkdir(path.join(root, "docs"));
    const layout = await detectProjectLayout(root);
    expect(layout.roots).toContainEqual({ kind: "tree", lexical: path.join(root, "_bmad"), real: path.join(root, "installs/current") });
    expect(layout.roots).toContainEqual({ kind: "knowledge", lexical: path.join(root, "docs"), real: path.join(root, "docs") });
    expect(layout.outputs).toEqual([{ tree: path.join(root, "installs/current"), module: "bmm", variables: { planning_artifacts: "{project-root}/out/plans", project_knowledge: "docs" } }]);
  });

  it("never takes skills from a protected folder such as .config or .ssh", async () => {
    const root = await project();
    for (const folder of [".config/skills", ".ssh/skills"]) await mkdir(path.join(root, folder), { recursive: true });
    expect((await detectProjectLayout(root)).skillFolders).toEqual([]);
  });
});
