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

  it("loses no change when two replicas change one project at once", async () => {
    const [first, second] = await twoReplicas();
    const project = await first.create("ada", "Launch");
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

  it("answers PROJECT_NOT_FOUND for a change to a missing project", async () => {
    const [store] = await twoReplicas();
    await expect(store.update("nope", (current) => current)).rejects.toMatchObject({ code: "PROJECT_NOT_FOUND" });
  });
});
