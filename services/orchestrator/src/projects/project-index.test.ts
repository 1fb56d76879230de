import { randomUUID } from "node:crypto";
import type { KV } from "nats";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, mapWithConcurrency, requestJson } from "@agent-orchestrator/shared/runtime";
import {
  ProjectListReply,
  ProjectMembersReply,
  ProjectReply,
  SessionListReply,
  subjects,
  type ProjectOperation,
} from "@agent-orchestrator/shared/wire";
import { z } from "zod";
import { ApprovalStore } from "../approvals/approval-store.js";
import { SessionStore } from "../sessions/session-store.js";
import { addSessionEndpoints } from "../endpoints/session-endpoints.js";
import { startFakeServices } from "../testing/orchestrator-fixture.js";
import { scratchStreams } from "../testing/scratch-streams.js";
import { addProjectEndpoints } from "../endpoints/project-endpoints.js";
import { ProjectStore } from "./project-store.js";

const scratch = scratchStreams();
const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

async function openBucket(name: string): Promise<KV> {
  const bucket = `${name}_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return scratch.connection().jetstream().views.kv(bucket, { history: 1 });
}

/** The projects bucket, recording the id of every project record read. */
function recording(kv: KV) {
  const recordsRead: string[] = [];
  const proxy = new Proxy(kv, {
    get(target, property, receiver) {
      if (property === "get") {
        return (key: string) => {
          if (key.startsWith("project.")) recordsRead.push(key.slice("project.".length));
          return target.get(key);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { kv: proxy, recordsRead };
}

/** One orchestrator's project and session endpoints over a recorded projects bucket, on a prefix of their own. */
async function startEndpoints(projectsPerUser = 100) {
  const connection = scratch.connection();
  const prefix = `pidx${randomUUID().slice(0, 8)}.`;
  const recorder = recording(await openBucket("projects"));
  const deps = {
    connection,
    config: { TOOL_TIMEOUT_MS: 5_000, TURN_TIMEOUT_MS: 60_000, RUN_ACK_WAIT_MS: 30_000, RUN_MAX_DELIVER: 3, PROJECTS_PER_USER: projectsPerUser },
    projects: ProjectStore.over(recorder.kv),
    sessions: SessionStore.over(await openBucket("sessions")),
    approvals: ApprovalStore.over(await openBucket("approvals")),
    subjectPrefix: prefix,
  };
  // a fake tool-runner answers the file purge of a deleted project
  startFakeServices(connection, prefix, { toolRunner: true });
  const service = await connection.services.add({ name: "project-index-test", version: "0.1.0" });
  stops.push(async () => {
    await service.stop();
  });
  const logger = createLogger("project-index-test", "silent");
  addProjectEndpoints(service, deps, logger);
  addSessionEndpoints(service, deps, logger, () => 512 * 1024);
  const ask = <S extends z.ZodType>(operation: ProjectOperation, body: Record<string, unknown>, schema: S): Promise<z.infer<S>> =>
    requestJson(connection, prefix + subjects.projectRequest(operation), body, schema, { timeoutMs: 10_000 });
  const create = async (user: string, name: string): Promise<string> => {
    const reply = await ask("create", { user, name }, ProjectReply);
    if (!reply.success) throw new Error(reply.error.message);
    return reply.project.id;
  };
  const listProjects = async (user: string): Promise<string[]> => {
    const reply = await ask("list", { user }, ProjectListReply);
    if (!reply.success) throw new Error(reply.error.message);
    return reply.projects.map((project) => project.name);
  };
  const listChats = (user: string) => requestJson(connection, prefix + subjects.sessionList, { user }, SessionListReply, { timeoutMs: 10_000 });
  return { recorder, ask, create, listProjects, listChats };
}

describe("the per-user project index", () => {
  it("case 220: lists a user's projects and chats without reading another user's many projects", async () => {
    const { recorder, ask, create, listProjects, listChats } = await startEndpoints();
    const heavys = await mapWithConcurrency(
      Array.from({ length: 40 }, (_unused, index) => index),
      4,
      (index) => create("heavy", `heavy ${index}`),
    );
    const lights = [await create("light", "one"), await create("light", "two"), await create("light", "three")];
    const shared = heavys[7] as string;
    expect(await ask("member_put", { user: "heavy", project_id: shared, member: "light", role: "viewer" }, ProjectMembersReply)).toMatchObject({ success: true });

    const personal = await ask("get", { user: "light" }, ProjectReply);
    if (!personal.success) throw new Error(personal.error.message);

    recorder.recordsRead.length = 0;
    expect(await listProjects("light")).toEqual(["Personal", "heavy 7", "one", "two", "three"]);
    expect(await listChats("light")).toEqual({ success: true, sessions: [] });
    const lightsOwn = new Set([...lights, shared, personal.project.id]);
    expect(recorder.recordsRead.length).toBeGreaterThan(0);
    expect(recorder.recordsRead.filter((id) => !lightsOwn.has(id))).toEqual([]);
  });

  it("answers PROJECT_LIMIT to a user past PROJECTS_PER_USER, whose personal project is not counted", async () => {
    const { ask, create, listProjects } = await startEndpoints(2);
    await create("ann", "one");
    await create("ann", "two");
    expect(await ask("create", { user: "ann", name: "three" }, ProjectReply)).toMatchObject({ success: false, error: { code: "PROJECT_LIMIT" } });
    expect(await listProjects("ann")).toEqual(["Personal", "one", "two"]);
  });

  it("takes a project out of a member's listing when they are removed, and out of everyone's when it is deleted", async () => {
    const { recorder, ask, create, listProjects } = await startEndpoints();
    const project = await create("ann", "Launch");
    await ask("member_put", { user: "ann", project_id: project, member: "ben", role: "editor" }, ProjectMembersReply);
    expect(await listProjects("ben")).toEqual(["Personal", "Launch"]);
    await ask("member_delete", { user: "ann", project_id: project, member: "ben" }, ProjectMembersReply);
    recorder.recordsRead.length = 0;
    expect(await listProjects("ben")).toEqual(["Personal"]);
    expect(recorder.recordsRead).not.toContain(project);

    await ask("member_put", { user: "ann", project_id: project, member: "ben", role: "viewer" }, ProjectMembersReply);
    expect(await listProjects("ben")).toEqual(["Personal", "Launch"]);
    await ask("delete", { user: "ann", project_id: project }, z.unknown());
    recorder.recordsRead.length = 0;
    expect(await listProjects("ann")).toEqual(["Personal"]);
    expect(await listProjects("ben")).toEqual(["Personal"]);
    expect(recorder.recordsRead).not.toContain(project);
  });
});
