import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";
import { learnRepositoryMark } from "./repository-mark-migration.js";

let store: TestFileStore;
const project = { kind: "project" as const, id: "p1" };
const alice = { user: "alice", session_id: "s1", agent_id: "dev" };

beforeEach(async () => {
  store = await openTestFileStore();
  await store.files.write(project, "README.md", "readme", alice);
});

afterEach(() => store.close());

describe("learning the repository mark of an index that has none", () => {
  it("writes what the repositories' bucket said", async () => {
    await learnRepositoryMark(store.files, "p1", await store.files.index(project), "g1");
    expect((await store.files.index(project)).repository).toBe("g1");
  });

  it("loses to an attach that marked the index after it was read: 'none' never hides a repository", async () => {
    const read = await store.files.index(project);
    await store.files.markRepository("p1", () => "g2");
    await learnRepositoryMark(store.files, "p1", read, null);
    expect((await store.files.index(project)).repository).toBe("g2");
  });

  it("loses to a file written since, and leaves a mark already there", async () => {
    const read = await store.files.index(project);
    await store.files.write(project, "b.md", "two", alice);
    await learnRepositoryMark(store.files, "p1", read, null);
    expect((await store.files.index(project)).repository).toBeUndefined();
    await store.files.markRepository("p1", () => "g3");
    await learnRepositoryMark(store.files, "p1", await store.files.index(project), null);
    expect((await store.files.index(project)).repository).toBe("g3");
  });
});
