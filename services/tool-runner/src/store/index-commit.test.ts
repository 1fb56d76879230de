import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";

let store: TestFileStore;
const project = { kind: "project" as const, id: "p1" };
const alice = { user: "alice", session_id: "s1", agent_id: "analyst" };

beforeEach(async () => {
  store = await openTestFileStore();
});

afterEach(() => store.close());

describe("a project index's repository mark", () => {
  it("is not known in an index a write made, and stays through writes once set", async () => {
    await store.files.write(project, "a.md", "one", alice);
    expect((await store.files.index(project)).repository).toBeUndefined();
    expect(await store.files.markRepository("p1", () => "g1")).toBe(true);
    await store.files.write(project, "b.md", "two", alice);
    await store.files.remove(project, "a.md", alice);
    const index = await store.files.index(project);
    expect(index.repository).toBe("g1");
    expect([...index.files.keys()].sort()).toEqual(["a.md", "b.md"]);
    // another replica reads it from the bucket, not from a cached parse
    expect((await (await store.replica()).index(project)).repository).toBe("g1");
  });

  it("marks a project that has no index yet, and keeps its files when the mark changes", async () => {
    await store.files.markRepository("p1", () => "g1");
    expect((await store.files.index(project)).files.size).toBe(0);
    await store.files.write(project, "a.md", "one", alice);
    await store.files.markRepository("p1", (index) => (index.repository === "g1" ? null : undefined));
    const index = await store.files.index(project);
    expect(index.repository).toBeNull();
    expect(text(await store.files.read(project, "a.md").then((read) => read.content))).toBe("one");
  });

  it("from a given revision, is written only when the index has not moved since", async () => {
    await store.files.write(project, "a.md", "one", alice);
    const read = await store.files.index(project);
    await store.files.write(project, "b.md", "two", alice);
    expect(await store.files.markRepository("p1", () => null, read.kvRevision)).toBe(false);
    expect((await store.files.index(project)).repository).toBeUndefined();
    const now = await store.files.index(project);
    expect(await store.files.markRepository("p1", () => null, now.kvRevision)).toBe(true);
    expect((await store.files.index(project)).repository).toBeNull();
  });

  it("leaves the index as it is when the decision is to leave it", async () => {
    await store.files.markRepository("p1", () => "g2");
    const before = await store.files.index(project);
    expect(await store.files.markRepository("p1", (index) => (index.repository === "g1" ? null : undefined))).toBe(true);
    expect(await store.files.index(project)).toMatchObject({ repository: "g2", kvRevision: before.kvRevision });
  });
});

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
