import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findToolSkills, findTreeSkills, type SkillCandidate } from "./skill-locator.js";

let root: string;
const write = async (files: string[]) => {
  for (const file of files) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), "x\n");
  }
};
const relativeOf = (candidate: SkillCandidate) => path.relative(root, candidate.folder);

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "skill-locator-"));
  await write([".agents/skills/beta/SKILL.md", ".agents/skills/alpha/SKILL.md", ".claude/skills/alpha/SKILL.md", ".claude/skills/.hidden/SKILL.md", ".claude/skills/notes.md"]);
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("findToolSkills", () => {
  const skillsFolders = () => [".agents/skills", ".claude/skills"].map((folder) => path.join(root, folder));
  const accept = (candidate: SkillCandidate) => Promise.resolve(candidate);

  it("gives every copy in serving order (folders as given, names in byte order), only folders and accepted names", async () => {
    const found = await findToolSkills({ skillsFolders: skillsFolders(), isCandidateName: (name) => !name.startsWith("."), accept, copies: "all" });
    expect(found.map(relativeOf)).toEqual([".agents/skills/alpha", ".agents/skills/beta", ".claude/skills/alpha"]);
  });

  it("with copies \"first\" looks at a name only until one copy is accepted", async () => {
    const looked: string[] = [];
    const found = await findToolSkills({
      skillsFolders: skillsFolders(),
      isCandidateName: (name) => !name.startsWith("."),
      accept: (candidate) => {
        looked.push(relativeOf(candidate));
        return Promise.resolve(candidate);
      },
      copies: "first",
    });
    expect(found.map(relativeOf)).toEqual([".agents/skills/alpha", ".agents/skills/beta"]);
    expect(looked).toEqual([".agents/skills/alpha", ".agents/skills/beta"]);
  });

  it("skips refused skills folders and stops at the limit, saying where", async () => {
    const reached: Array<[string, number, number]> = [];
    const found = await findToolSkills({
      skillsFolders: skillsFolders(),
      acceptSkillsFolder: (folder) => Promise.resolve(folder.endsWith(".agents/skills")),
      isCandidateName: () => true,
      accept,
      copies: "all",
      limit: { max: 1, onReached: (folder, entries, remaining) => reached.push([path.relative(root, folder), entries, remaining]) },
    });
    expect(found.map(relativeOf)).toEqual([".agents/skills/alpha"]);
    expect(reached).toEqual([[".agents/skills", 2, 1]]);
  });
});

describe("findTreeSkills", () => {
  it("finds SKILL.md folders in each tree, trees in byte order, not entering skipped folders", async () => {
    await write(["_bmad/bmm/workflows/make-prd/SKILL.md", "_bmad/.cache/old/SKILL.md", "_a/core/help/SKILL.md"]);
    const found = await findTreeSkills([path.join(root, "_bmad"), path.join(root, "_a")], (name) => name.startsWith("."));
    expect(found.map((candidate) => [candidate.name, relativeOf(candidate), path.relative(root, candidate.parent)])).toEqual([
      ["help", "_a/core/help", "_a"],
      ["make-prd", "_bmad/bmm/workflows/make-prd", "_bmad"],
    ]);
  });
});
