import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { zeroUsage, type SessionHead } from "@agent-orchestrator/shared/wire";
import { headKey, SessionStore } from "../sessions/session-store.js";
import { scratchStreams } from "../testing/scratch-streams.js";
import { ProjectStore } from "../projects/project-store.js";
import { moveSessionsIntoProjects } from "./session-project-migration.js";

const scratch = scratchStreams();

/** A head as an orchestrator from before projects wrote it: no project_id. */
function oldHead(id: string, owner: string): SessionHead {
  const at = "2025-01-01T00:00:00.000Z";
  return {
    id,
    agent_id: "analyst",
    owner,
    status: "completed",
    run_id: null,
    run_started_at: null,
    last_run_id: "r1",
    usage: zeroUsage(),
    turns: 1,
    created_at: at,
    updated_at: at,
    title: `chat ${id}`,
    batches: [],
  };
}

describe("moveSessionsIntoProjects", () => {
  it("moves every old session into its owner's default project once, with two replicas starting at once", async () => {
    const connection = scratch.connection();
    const suffix = randomUUID().slice(0, 8);
    const sessionsBucket = `sessions_${suffix}`;
    const projectsBucket = `projects_${suffix}`;
    scratch.track(`KV_${sessionsBucket}`);
    scratch.track(`KV_${projectsBucket}`);
    const kv = await connection.jetstream().views.kv(sessionsBucket, { history: 1 });
    const old = [oldHead("s1", "alice"), oldHead("s2", "alice"), oldHead("s3", "bob@example.com")];
    for (const head of old) await kv.put(headKey(head.owner, head.id), encodeJson(head));

    const replicas = await Promise.all(
      [1, 2].map(async () => ({ sessions: await SessionStore.open(connection, sessionsBucket), projects: await ProjectStore.open(connection, projectsBucket) })),
    );
    const moved = await Promise.all(replicas.map((replica) => moveSessionsIntoProjects(replica.sessions, replica.projects)));
    expect(moved.reduce((sum, count) => sum + count, 0)).toBe(3);

    const [{ sessions, projects }] = replicas as [(typeof replicas)[number]];
    const alice = await projects.defaultFor("alice");
    const bob = await projects.defaultFor("bob@example.com");
    expect((await projects.all()).filter((project) => project.personal)).toHaveLength(2);
    expect(await Promise.all(old.map((head) => sessions.locate(head.id)))).toEqual([
      { owner: "alice", project_id: alice.id },
      { owner: "alice", project_id: alice.id },
      { owner: "bob@example.com", project_id: bob.id },
    ]);
    expect((await sessions.listByProject(alice.id)).map(({ head }) => head.id).sort()).toEqual(["s1", "s2"]);
    expect((await sessions.get("s3", "bob@example.com"))?.record).toMatchObject({ project_id: bob.id, turns: 1 });
    // a later start finds nothing to move
    expect(await moveSessionsIntoProjects(sessions, projects)).toBe(0);
  });
});
