import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scratchStreams } from "../testing/scratch-streams.js";
import { ProjectStore } from "./project-store.js";

const scratch = scratchStreams();

/** Two stores over one fresh bucket: two orchestrator replicas. */
async function twoReplicas(): Promise<[ProjectStore, ProjectStore]> {
  const bucket = `projects_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return [await ProjectStore.open(scratch.connection(), bucket), await ProjectStore.open(scratch.connection(), bucket)];
}

describe("ProjectStore", () => {
  it("makes one default project however many replicas ask for it at once, for any user name", async () => {
    const [first, second] = await twoReplicas();
    const user = "Ada Lovelace <ada@example.com>";
    const made = await Promise.all(Array.from({ length: 8 }, (_unused, index) => (index % 2 ? first : second).defaultFor(user)));
    expect(new Set(made.map((project) => project.id)).size).toBe(1);
    expect(made[0]).toMatchObject({ owner: user, personal: true, members: {} });
    expect((await first.all()).filter((project) => project.owner === user)).toHaveLength(1);
    expect((await second.defaultFor(user)).id).toBe(made[0]?.id);
  });

  it("reads a user's default pointer once: later turns in the default project read only its record", async () => {
    const bucket = `projects_${randomUUID().slice(0, 8)}`;
    scratch.track(`KV_${bucket}`);
    const kv = await scratch.connection().jetstream().views.kv(bucket, { history: 1 });
    const read: string[] = [];
    const recorded = new Proxy(kv, {
      get(target, property, receiver) {
        if (property === "get") return (key: string) => (read.push(key), target.get(key));
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const store = ProjectStore.over(recorded);
    const made = await store.defaultFor("ada");
    read.length = 0;
    expect(await store.defaultFor("ada")).toEqual(made);
    expect(read).toEqual([`project.${made.id}`]);
  });

  it("loses no change when two replicas change one project at once", async () => {
    const [first, second] = await twoReplicas();
    const project = await first.create("ada", "Launch", 100);
    const members = Array.from({ length: 10 }, (_unused, index) => `member${index}`);
    await Promise.all(
      members.map((member, index) =>
        (index % 2 ? first : second).update(project.id, (current) => ({ ...current, members: { ...current.members, [member]: "editor" } })),
      ),
    );
    await Promise.all([
      first.update(project.id, (current) => ({ ...current, name: "Renamed" })),
      second.update(project.id, (current) => ({ ...current, members: { ...current.members, late: "viewer" } })),
    ]);
    const stored = await second.get(project.id);
    expect(stored?.record.name).toBe("Renamed");
    expect(Object.keys(stored?.record.members ?? {}).sort()).toEqual([...members, "late"].sort());
  });

  it("case 221: refuses a project past the owner's limit with PROJECT_LIMIT, however many are made at once", async () => {
    const [first, second] = await twoReplicas();
    const limit = 3;
    const burst = await Promise.allSettled(Array.from({ length: 8 }, (_unused, index) => (index % 2 ? first : second).create("ada", `burst ${index}`, limit)));
    for (const outcome of burst) {
      if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "PROJECT_LIMIT" });
    }
    expect((await first.memberProjects("ada")).length).toBeLessThanOrEqual(limit);
    // one by one up to the limit: two made at the same moment at the limit may both have been refused
    while ((await first.memberProjects("ada")).length < limit) await first.create("ada", "one more", limit);
    await expect(second.create("ada", "past it", limit)).rejects.toMatchObject({ code: "PROJECT_LIMIT" });
    // the personal project is not counted, and another user has a limit of their own
    expect((await first.defaultFor("ada")).personal).toBe(true);
    await second.create("bea", "hers", limit);

    const [gone] = await first.memberProjects("ada");
    const stored = gone && (await first.get(gone.id));
    if (!stored) throw new Error("no project to delete");
    await first.remove(stored);
    await second.create("ada", "in its place", limit);
    expect((await first.memberProjects("ada")).length).toBe(limit);
  });

  it("does not count a project whose record is gone but whose index key stayed (a delete stopped half-way)", async () => {
    const bucket = `projects_${randomUUID().slice(0, 8)}`;
    scratch.track(`KV_${bucket}`);
    const kv = await scratch.connection().jetstream().views.kv(bucket, { history: 1 });
    // a key is a leftover once it has been alone for a minute: here at once
    const store = ProjectStore.over(kv, { leftoverMs: 0 });
    const kept = await store.create("ada", "kept", 2);
    const halfDeleted = await store.create("ada", "half deleted", 2);
    await kv.purge(`project.${halfDeleted.id}`);
    await store.create("ada", "new", 2);
    const listed = (await store.memberProjects("ada")).map((project) => project.id);
    expect(listed).toHaveLength(2);
    expect(listed).toContain(kept.id);
  });

  it("answers PROJECT_NOT_FOUND for a change to a missing project", async () => {
    const [store] = await twoReplicas();
    await expect(store.update("nope", (current) => current)).rejects.toMatchObject({ code: "PROJECT_NOT_FOUND" });
  });
});
