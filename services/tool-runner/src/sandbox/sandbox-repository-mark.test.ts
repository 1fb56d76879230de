import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let system: TestRepositories;
let installed: SandboxFixture;
let sandbox: Sandbox;
let bundle: string;
const removals: Array<() => Promise<void>> = [];
const alice = { user: "alice", session_id: "s1", agent_id: "dev" };
const contextOf = (project: string) => ({ session_id: "s1", project_id: project, bundle_path: "bmad/custom/bundles/studio" });
const readme = async (project: string) => (await sandbox.read(contextOf(project), "{project-root}/README.md")).content;
const markOf = async (project: string) => (await system.files.index({ kind: "project", id: project })).repository;

/** A project of its own whose store holds its own README.md. */
async function storedProject(): Promise<string> {
  const project = `p${randomUUID().slice(0, 8)}`;
  await system.files.write({ kind: "project", id: project }, "README.md", "stored readme\n", alice);
  return project;
}

beforeAll(async () => {
  system = await openTestRepositories();
  installed = await createSandboxFixture();
  sandbox = await createSandbox({ projectRoot: installed.project, files: system.files, trees: system.trees, ...fixtureLimits });
  const made = await makeTestRepository({ "README.md": "# Calc\n" });
  removals.push(made.remove, installed.cleanup);
  bundle = made.bundle;
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

describe("the sandbox reads the project's index for whether it has a repository", () => {
  it("learns 'none' at the first call, and sees a repository attached later, then detached", async () => {
    const project = await storedProject();
    expect(await markOf(project)).toBeUndefined();
    expect(await readme(project)).toBe("stored readme\n");
    expect(await markOf(project)).toBeNull();
    await system.repositories.attachBundle(project, bundle, "alice");
    expect(await readme(project)).toBe("# Calc\n");
    await system.repositories.detach(project);
    expect(await readme(project)).toBe("stored readme\n");
  });

  it("a call made while a repository is attached reads the store or the working tree, whole, and every call after it the working tree", async () => {
    const project = await storedProject();
    expect(await readme(project)).toBe("stored readme\n");
    const reads: Array<Promise<string>> = [];
    const attach = system.repositories.attachBundle(project, bundle, "alice");
    for (let at = 0; at < 20; at += 1) reads.push(readme(project));
    await attach;
    for (const read of await Promise.all(reads)) expect(["stored readme\n", "# Calc\n"]).toContain(read);
    expect(await readme(project)).toBe("# Calc\n");
    const detach = system.repositories.detach(project);
    const during = await Promise.all(Array.from({ length: 20 }, () => readme(project)));
    await detach;
    for (const read of during) expect(["stored readme\n", "# Calc\n"]).toContain(read);
    expect(await readme(project)).toBe("stored readme\n");
  });

  it("after an upgrade, a project whose index an older tool-runner wrote (no mark) still reads its repository, and the mark is learnt", async () => {
    const project = await storedProject();
    await system.repositories.attachBundle(project, bundle, "alice");
    const { value: record } = await system.repositories.bucket.record(project);
    // the index as a tool-runner from before the mark writes it: the files only
    const kv = await system.connection.jetstream().views.kv(jetStreamNames(system.prefix).fileIndexBucket);
    const files = [...(await system.files.index({ kind: "project", id: project })).files.values()];
    await kv.put(`idx.p.${project}`, JSON.stringify({ files }));
    expect(await markOf(project)).toBeUndefined();
    expect(await readme(project)).toBe("# Calc\n");
    expect(await markOf(project)).toBe(record?.generation);
    await system.repositories.detach(project);
    expect(await markOf(project)).toBeNull();
    expect(await readme(project)).toBe("stored readme\n");
  });

  it("a forged mark naming another project's repository shows nothing of it: the call's own project's record decides (case 361)", async () => {
    const other = await storedProject();
    await system.repositories.attachBundle(other, bundle, "alice");
    const { value: record } = await system.repositories.bucket.record(other);
    const project = await storedProject();
    await system.files.markRepository(project, () => record?.generation ?? "x");
    expect(await readme(project)).toBe("stored readme\n");
    await expect(sandbox.read(contextOf(project), "{project-root}/src/missing.js")).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
  });
});
