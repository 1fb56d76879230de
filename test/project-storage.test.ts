/**
 * Every durable byte in JetStream, nothing on a shared volume (docs/projects.md "Storage"):
 * - two tool-runner processes, each started in a working directory of its own with an OUTPUT_ROOT of its own
 *   (both empty temp folders), serve one project: the file a chat wrote through the first is read and listed
 *   by later chats after that tool-runner was killed, served by the other, and the project's files API lists
 *   it; neither process leaves anything in its folders;
 * - an existing deployment's old session folder (`<OUTPUT_ROOT>/<session>/` with its manifest.json) is moved
 *   at start into that chat's scratch space, once, and the chat, once the orchestrator has moved its record
 *   into its owner's default project, lists and serves those files to its owner and to nobody else.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { FilesListReply, jetStreamNames, zeroUsage, type FileListing, type SessionHead } from "@agent-orchestrator/shared/wire";
import { natsAdminUser } from "@agent-orchestrator/testing/nats-users";
import { headKey } from "@agent-orchestrator/orchestrator";
import { startFaultSystem, waitForReplicas, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";
import { testNatsPasswords } from "@agent-orchestrator/testing/nats-harness";
import { fileToolsResponder } from "@agent-orchestrator/testing/file-tools-responder";
import { startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const tokens = { alice: "alice-token-storage", bob: "bob-token-storage" } as const;
type User = keyof typeof tokens;
const authTokens = Object.entries(tokens)
  .map(([user, token]) => `${user}:${token}`)
  .join(",");

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(url: string, user: User, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const temporaryFolders: string[] = [];
async function temporaryFolder(label: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `ao-storage-${label}-`));
  temporaryFolders.push(folder);
  return folder;
}

afterAll(async () => {
  await Promise.all(temporaryFolders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe("two tool-runners with nothing on a shared volume", () => {
  let system: FaultSystem;
  let url: string;
  /** each tool-runner's own working directory and OUTPUT_ROOT */
  const folders = { first: { cwd: "", outputRoot: "" }, second: { cwd: "", outputRoot: "" } };

  beforeAll(async () => {
    for (const runner of ["first", "second"] as const) {
      folders[runner] = { cwd: await temporaryFolder(`${runner}-cwd`), outputRoot: await temporaryFolder(`${runner}-outputs`) };
    }
    system = await startFaultSystem({
      responder: fileToolsResponder,
      env: { AUTH_TOKENS: authTokens },
      envFor: { "tool-runner": { OUTPUT_ROOT: folders.first.outputRoot } },
      cwdFor: { "tool-runner": folders.first.cwd },
    });
    url = system.gatewayUrls[0] as string;
  }, 60_000);

  afterAll(() => system?.stop());

  it("serves a project's file written through one tool-runner from the other once the first is killed, and lists it", async () => {
    const created = await call(url, "alice", "POST", "/api/projects", { name: "Harbour" });
    expect(created.status).toBe(201);
    const project = String((created.body["project"] as { id: string }).id);
    const [first] = system.processes["tool-runner"] as [ServiceProcess];

    // the only tool-runner running yet stores the brief
    const write = await call(url, "alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "save {project-root}/docs/brief.md\n# Brief\nA harbour for small boats." });
    expect(write.body).toMatchObject({ success: true, project_id: project, response: "saved {project-root}/docs/brief.md r1" });

    const second = await system.startReplica("tool-runner", { env: { OUTPUT_ROOT: folders.second.outputRoot }, cwd: folders.second.cwd });
    await second.waitForLine((line) => line["msg"] === "tool-runner serving");
    await waitForReplicas(url, { "tool-runner": 2 });
    await first.stop("SIGKILL");
    await waitForReplicas(url, { "tool-runner": 1 });

    // later chats of the project, served by the tool-runner that never saw the file
    const read = await call(url, "alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "read {project-root}/docs/brief.md" });
    expect(read.body).toMatchObject({ success: true, response: "# Brief\nA harbour for small boats." });
    expect(read.body["session_id"]).not.toBe(write.body["session_id"]);
    const list = await call(url, "alice", "POST", "/api/chat", { agent_id: "idea-coach", project_id: project, message: "list {project-root}/docs" });
    expect(String(list.body["response"]).split(",")).toContain("brief.md");

    const files = await call(url, "alice", "GET", `/api/projects/${project}/files`);
    expect(files.body["files"]).toEqual([
      expect.objectContaining({ path: "docs/brief.md", revision: 1, author: expect.objectContaining({ user: "alice", session_id: write.body["session_id"], agent_id: "idea-coach" }) }),
    ]);
    const content = await fetch(`${url}/api/projects/${project}/files/docs/brief.md?raw`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    expect(await content.text()).toBe("# Brief\nA harbour for small boats.");

    // neither tool-runner kept anything where it runs
    for (const runner of ["first", "second"] as const) {
      expect({ runner, cwd: await readdir(folders[runner].cwd), outputRoot: await readdir(folders[runner].outputRoot) }).toEqual({ runner, cwd: [], outputRoot: [] });
    }
  });
});

describe("moving an existing deployment's session folders at start", () => {
  const sessionId = `legacy-${randomUUID().slice(0, 8)}`;
  let outputRoot: string;
  let system: TestSystem;
  let admin: NatsConnection;
  const started: ServiceProcess[] = [];

  /** The chat's scratch space as the tool-runner lists it, asked over NATS. */
  async function scratchFiles(): Promise<FileListing[]> {
    const reply = await admin.request("project.files.list", encodeJson({ space: { kind: "session", id: sessionId } }), { timeout: 5_000 });
    const parsed = FilesListReply.parse(reply.json());
    if (!parsed.success) throw new Error(JSON.stringify(parsed.error));
    return parsed.files;
  }

  beforeAll(async () => {
    // what a deployment from before projects left: the session folder, its manifest and call records, a protected file
    outputRoot = await temporaryFolder("legacy");
    const folder = join(outputRoot, sessionId);
    await mkdir(join(folder, "planning-artifacts"), { recursive: true });
    await mkdir(join(folder, ".tool-calls"), { recursive: true });
    await writeFile(join(folder, "manifest.json"), JSON.stringify({ id: sessionId, owner: "alice", agent: "idea-coach", status: "completed", files: [] }));
    await writeFile(join(folder, "planning-artifacts", "brief.md"), "# Brief\nFrom before projects.\n");
    await writeFile(join(folder, ".tool-calls", "call-1.json"), "{}");
    await writeFile(join(folder, ".env"), "SECRET=1\n");
    system = await startTestSystem({ responder: fileToolsResponder, env: { AUTH_TOKENS: authTokens, OUTPUT_ROOT: outputRoot } });
    admin = await connect({ servers: system.env["NATS_URL"], user: natsAdminUser, pass: testNatsPasswords.admin });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop()));
    await admin?.close();
    await system?.stop();
  });

  it("moves the chat's files into its scratch space once, without the manifest, the call records or protected names", async () => {
    const toolRunner = system.processes.find((service) => service.name === "tool-runner") as ServiceProcess;
    const moved = await toolRunner.waitForLine((line) => String(line["msg"]).startsWith("moved the chats' files of OUTPUT_ROOT"));
    expect(moved).toMatchObject({ chats: 1, files: 1 });
    expect(await scratchFiles()).toEqual([
      expect.objectContaining({ path: "planning-artifacts/brief.md", revision: 1, author: expect.objectContaining({ user: "alice", session_id: sessionId }) }),
    ]);

    // a second replica (or a restart) over the same folder moves nothing again
    const replica = startServiceProcess("tool-runner", system.env);
    started.push(replica);
    await replica.waitForLine((line) => line["msg"] === "tool-runner serving");
    expect(replica.lines.filter((line) => String(line["msg"]).startsWith("moved the chats' files"))).toEqual([]);
    expect((await scratchFiles()).map((file) => [file.path, file.revision])).toEqual([["planning-artifacts/brief.md", 1]]);
    // the folder is left for the operator
    expect((await readdir(join(outputRoot, sessionId))).sort()).toEqual([".env", ".tool-calls", "manifest.json", "planning-artifacts"]);
  });

  it("lists and serves the moved files with the chat, to its owner only, once its record is in her default project", async () => {
    // the chat's record as an orchestrator from before projects wrote it (no project_id); an orchestrator starting moves it
    const at = "2025-01-01T00:00:00.000Z";
    const head: SessionHead = {
      id: sessionId,
      agent_id: "idea-coach",
      owner: "alice",
      status: "completed",
      run_id: null,
      run_started_at: null,
      last_run_id: "r1",
      usage: zeroUsage(),
      turns: 1,
      created_at: at,
      updated_at: at,
      title: "a chat from before projects",
      batches: [],
    };
    const sessions = await admin.jetstream().views.kv(jetStreamNames().sessionsBucket, { bindOnly: true });
    await sessions.put(headKey("alice", sessionId), encodeJson(head));
    const orchestrator = startServiceProcess("orchestrator", system.env);
    started.push(orchestrator);
    await orchestrator.waitForLine((line) => String(line["msg"]).includes("moved into their owners' default projects"));

    const defaultProject = await call(system.url, "alice", "GET", "/api/projects/default");
    const view = await call(system.url, "alice", "GET", `/api/sessions/${sessionId}`);
    expect(view.body["session"]).toMatchObject({ id: sessionId, owner: "alice", project_id: (defaultProject.body["project"] as { id: string }).id });
    const files = await call(system.url, "alice", "GET", `/api/sessions/${sessionId}/files`);
    expect(files.body).toMatchObject({ success: true, files: [expect.objectContaining({ path: "planning-artifacts/brief.md" })], unservable_names: 0 });
    const brief = await fetch(`${system.url}/api/sessions/${sessionId}/files/planning-artifacts/brief.md`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    expect(await brief.text()).toBe("# Brief\nFrom before projects.\n");
    for (const path of [`/api/sessions/${sessionId}`, `/api/sessions/${sessionId}/files`, `/api/sessions/${sessionId}/files/planning-artifacts/brief.md`]) {
      expect({ path, status: (await call(system.url, "bob", "GET", path)).status }).toEqual({ path, status: 404 });
    }
  });
});
