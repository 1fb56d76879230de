import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";

let system: TestRepositories;
let bundle: string;
const removals: Array<() => Promise<void>> = [];
const markOf = async (project: string) => (await system.files.index({ kind: "project", id: project })).repository;

beforeAll(async () => {
  system = await openTestRepositories();
  const made = await makeTestRepository({ "README.md": "# Calc\n" });
  removals.push(made.remove);
  bundle = made.bundle;
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

describe("the project index's repository mark", () => {
  it("an attach marks the index with the repository's generation, a detach unmarks it", async () => {
    const project = await system.attached(bundle);
    const { value: record } = await system.repositories.bucket.record(project);
    expect(await markOf(project)).toBe(record?.generation);
    await system.repositories.detach(project);
    expect(await markOf(project)).toBeNull();
    await system.repositories.attachBundle(project, bundle, "alice");
    const { value: again } = await system.repositories.bucket.record(project);
    expect(again?.generation).not.toBe(record?.generation);
    expect(await markOf(project)).toBe(again?.generation);
  });

  it("a detach leaves the mark of another attach made since its record went", async () => {
    const project = await system.attached(bundle);
    // as another attach would mark it, between this detach's removal of the record and its unmarking
    await system.files.markRepository(project, () => "another-attach");
    await system.repositories.detach(project);
    expect(await markOf(project)).toBe("another-attach");
    // a mark without a record is read as before marks: the repositories' bucket says there is none
    expect(await system.repositories.attached(project)).toBeUndefined();
  });

  it("an attach refused because the project has a repository leaves the mark as it was", async () => {
    const project = await system.attached(bundle);
    const before = await markOf(project);
    await expect(system.repositories.attachBundle(project, bundle, "bob")).rejects.toMatchObject({ code: "REPOSITORY_EXISTS" });
    expect(await markOf(project)).toBe(before);
  });
});
