import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BranchArchiveReply } from "@agent-orchestrator/shared/wire";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";
import { BranchArchive } from "./branch-archive.js";
import { TreeFiles } from "./tree-files.js";

let system: TestRepositories;
let project: string;
let scratch: string;
const removals: Array<() => Promise<void>> = [];
const zips: Buffer[] = [];
const bodies = {
  async send(output: AsyncIterable<Buffer>) {
    const chunks: Buffer[] = [];
    for await (const chunk of output) chunks.push(chunk);
    zips.push(Buffer.concat(chunks));
    return { inline: Buffer.concat(chunks).toString("base64") };
  },
};

/** The names in a zip and the content of one, as unzip reads them. */
async function unzipped(zip: Buffer, name?: string): Promise<string> {
  const file = path.join(scratch, "archive.zip");
  await writeFile(file, zip);
  return execFileSync("unzip", name === undefined ? ["-Z1", file] : ["-p", file, name], { encoding: "utf8" });
}

beforeAll(async () => {
  system = await openTestRepositories();
  scratch = await mkdtemp(path.join(tmpdir(), "ao-archive-test-"));
  const made = await makeTestRepository(
    { "README.md": "# Calc\n", "src/add.js": "export {};\n", ".env": "TOKEN=secret\n", "_bmad/bmm/config.yaml": "x: 1\n", "link-out": { link: "/etc/passwd" } },
    { feature: { "src/mul.js": "export {};\n" } },
  );
  removals.push(made.remove);
  project = await system.attached(made.bundle);
  await system.trees.change({ project, session: "s1" }, async () => [{ path: "notes/draft.md", content: Buffer.from("# Draft\n") }], { user: "alice", session_id: "s1" });
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
  await rm(scratch, { recursive: true, force: true });
});

const archive = () => new BranchArchive(system.repositories, bodies, new TreeFiles());
const point = (reply: BranchArchiveReply) => {
  if (!reply.success || reply.archive === null) throw new Error(JSON.stringify(reply));
  return reply.archive;
};

describe("a branch as a zip", () => {
  it("holds the default branch's files the files API lists, never a secret, a link or BMAD's install places (case 353)", async () => {
    const shown = point(await archive().archive({ project_id: project }));
    expect(shown).toMatchObject({ branch: "main", working_tree: false, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect((await unzipped(zips.at(-1) as Buffer)).split("\n").filter((name) => name !== "" && !name.endsWith("/")).sort()).toEqual(["README.md", "src/add.js"]);
    expect(await unzipped(zips.at(-1) as Buffer, "src/add.js")).toBe("export {};\n");
  });

  it("holds a chat's working tree with its uncommitted files, or another branch's last commit", async () => {
    expect(point(await archive().archive({ project_id: project, branch: "chat/s1" }))).toMatchObject({ branch: "chat/s1", working_tree: true });
    expect(await unzipped(zips.at(-1) as Buffer)).toContain("notes/draft.md");
    expect(point(await archive().archive({ project_id: project, branch: "feature" }))).toMatchObject({ branch: "feature", working_tree: false });
    expect(await unzipped(zips.at(-1) as Buffer)).toContain("src/mul.js");
  });

  it("refuses a branch the repository lacks and answers null for a project without a repository", async () => {
    await expect(archive().archive({ project_id: project, branch: "nope" })).rejects.toMatchObject({ code: "BRANCH_NOT_FOUND" });
    expect(await archive().archive({ project_id: "no-repository" })).toEqual({ success: true, archive: null });
  });
});
