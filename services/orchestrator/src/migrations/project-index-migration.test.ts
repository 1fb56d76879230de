import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { type ProjectRecord } from "@agent-orchestrator/shared/wire";
import { scratchStreams } from "../testing/scratch-streams.js";
import { indexStoredProjects } from "./project-index-migration.js";
import { ProjectStore } from "../projects/project-store.js";

const scratch = scratchStreams();

/** A project as an orchestrator from before the per-user index stored it: its record alone. */
function legacyRecord(owner: string, name: string, members: ProjectRecord["members"]): ProjectRecord {
  const now = new Date().toISOString();
  return { id: randomUUID(), name, owner, members, personal: false, created_at: now, updated_at: now };
}

describe("indexStoredProjects", () => {
  it("case 222: lists the projects stored before the index once any replica has started, however many start at once", async () => {
    const bucket = `projects_${randomUUID().slice(0, 8)}`;
    scratch.track(`KV_${bucket}`);
    const kv = await scratch.connection().jetstream().views.kv(bucket, { history: 1 });
    const launch = legacyRecord("ada", "Launch", { bob: "editor", cy: "viewer" });
    const notes = legacyRecord("bob", "Notes", {});
    for (const record of [launch, notes]) await kv.create(`project.${record.id}`, encodeJson(record));
    const [first, second] = [await ProjectStore.open(scratch.connection(), bucket), await ProjectStore.open(scratch.connection(), bucket)];
    const names = async (user: string) => (await first.memberProjects(user)).map((project) => project.name).sort();
    // without the migration, the listings (which read the index only) would miss them
    expect(await names("bob")).toEqual([]);

    await Promise.all([indexStoredProjects(first), indexStoredProjects(second)]);
    expect(await names("ada")).toEqual(["Launch"]);
    expect(await names("bob")).toEqual(["Launch", "Notes"]);
    expect(await names("cy")).toEqual(["Launch"]);

    // the next start changes nothing, and the legacy projects count toward their owner's limit
    await indexStoredProjects(second);
    expect(await names("bob")).toEqual(["Launch", "Notes"]);
    await expect(second.create("bob", "Second", 1)).rejects.toMatchObject({ code: "PROJECT_LIMIT" });
  });
});
