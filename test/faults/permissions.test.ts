/**
 * Fault 1 (docs/security.md cases 58–62): a compromised service keeps only its own permissions. The real system
 * runs on a private nats-server with deploy/nats/nats-server.conf; the test then connects with one
 * service's credentials, the way that service's code would, and tries what it must not do. Each attempt
 * must show as a permission violation (on the client's status stream and in the server's log) and
 * deliver nothing: an admin observer subscribed to `>` never sees the message.
 */
import { once } from "node:events";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, RequestStrategy, type Msg, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { inboxPrefixFor, jetStreamNames, serviceNames, type ServiceName } from "@agent-orchestrator/shared/wire";
import { natsIsExternal, testNatsCredentials } from "@agent-orchestrator/testing/nats-harness";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { repoRoot, startServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { permissionViolations, startFaultSystem, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";

interface Identity {
  connection: NatsConnection;
  /** the permission violations nats.js reported for this connection */
  violations: Array<{ operation: string; subject: string }>;
}

let system: FaultSystem;
let observer: NatsConnection;
const observed: string[] = [];
const identities = new Map<ServiceName, Identity>();
const context = { session_id: "perm-session", bundle_path: "bmad/custom/bundles/idea-studio", project_id: "perm-project", user: "local", agent_id: "idea-coach" };
const chatSpace = { kind: "session", id: context.session_id } as const;
let project: string;

/** An installed-module agent whose menu invokes a skill: run_subagent is offered to agents that use skills. */
const delegatorAgent = `\`\`\`xml
<agent id="delegator" name="Dee" title="Delegating Agent" icon="🧭">
  <persona>
    <role>Hands self-contained tasks to subagents</role>
    <identity>An agent of the permission test.</identity>
    <communication_style>Short.</communication_style>
    <principles>Delegate what can run on its own.</principles>
  </persona>
  <menu>
    <item cmd="SUM" exec="skill:bmad-summarize">Summarize with a skill</item>
  </menu>
</agent>
\`\`\`
`;

/** The repository's sample bundle plus an installed `_bmad/bmm` module holding the delegating agent. */
async function projectWithDelegator(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "ao-permissions-project-"));
  await cp(join(repoRoot, "bmad"), join(folder, "bmad"), { recursive: true });
  await mkdir(join(folder, "_bmad", "bmm", "agents"), { recursive: true });
  await writeFile(join(folder, "_bmad", "bmm", "config.yaml"), "user_name: Ada\n");
  await writeFile(join(folder, "_bmad", "bmm", "agents", "delegator.md"), delegatorAgent);
  return folder;
}

/** Connects with a service's credentials and inbox prefix, recording its permission violations. */
async function connectAs(service: ServiceName): Promise<Identity> {
  const { NATS_USER, NATS_PASSWORD } = testNatsCredentials(service);
  const connection = await connect({ servers: system.nats.url, user: NATS_USER, pass: NATS_PASSWORD, inboxPrefix: inboxPrefixFor(service) });
  const identity: Identity = { connection, violations: [] };
  void (async () => {
    for await (const status of connection.status()) {
      if (status.permissionContext) identity.violations.push({ operation: status.permissionContext.operation, subject: status.permissionContext.subject });
    }
  })();
  return identity;
}

const as = (service: ServiceName): Identity => identities.get(service) as Identity;

/**
 * Lets every message and error of the attempts so far arrive: a round trip on each service's connection
 * (the server answers its PING after the violations of what it sent before, and after routing what it
 * allowed), then one on the observer's (whose PONG follows the messages routed to it), then a turn of the
 * event loop for the status iterators to record the violations. The server's log is read through a pipe:
 * its lines are awaited with `logged`.
 */
async function settle(): Promise<void> {
  await Promise.all([...identities.values()].map((identity) => identity.connection.flush()));
  await observer.flush();
  await new Promise((resolve) => setImmediate(resolve));
}

/** "ok", except that "delegate" hands a task to a subagent (whose orchestrator publishes what the permissions must allow). */
function delegateOrAnswer(request: ChatRequestBody): ScriptedTurn {
  if (String(request.messages[0]?.content).includes("working as a subagent")) return { text: "child ok" };
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `ok: ${String((JSON.parse(String(last.content)) as { response?: string }).response)}` };
  return withoutSystemNote(String(last?.content)) === "delegate" ? { toolCalls: [{ name: "run_subagent", arguments: { prompt: "say ok" } }] } : { text: "ok" };
}

const serverLogged = (user: string, kind: "Publish" | "Subscription", subject: string) =>
  system.nats.logLines.some((line) => line.includes(`${kind} Violation - User "${user}", Subject "${subject}"`));

/** Waits for the server's log line of a violation (it comes through a pipe, not with the client's error). */
const logged = (user: string, kind: "Publish" | "Subscription", subject: string, message?: string) =>
  expect.poll(() => serverLogged(user, kind, subject), { timeout: 10_000, ...(message ? { message } : {}) }).toBe(true);

/** The paths of a file space, asked of the tool-runner as `identity` (the store itself: no folder holds them). */
async function spacePaths(identity: Identity, space: { kind: "project" | "session"; id: string }): Promise<string[]> {
  const reply = await identity.connection.request("project.files.list", encodeJson({ space }), { timeout: 5_000 });
  const listed = reply.json<{ success: boolean; files?: Array<{ path: string }> }>();
  expect(listed.success).toBe(true);
  return (listed.files ?? []).map((file) => file.path);
}

/** Writes one file into a project as the gateway does for a member's upload. */
async function upload(projectId: string, path: string): Promise<void> {
  const write = { space: { kind: "project", id: projectId }, path, content: "# kept\n", author: { user: "local" } };
  const reply = await as("gateway").connection.request("project.files.write", encodeJson(write), { timeout: 5_000 });
  expect(reply.json<{ success: boolean }>()).toMatchObject({ success: true });
}

beforeAll(async () => {
  project = await projectWithDelegator();
  system = await startFaultSystem({ responder: delegateOrAnswer, env: { BMAD_ROOT: project } });
  // an admin sees every message on the server: what it never sees was never delivered to anyone
  observer = await connect({ servers: system.nats.url, user: "admin", pass: testNatsCredentials("admin").NATS_PASSWORD });
  observer.subscribe(">", { callback: (_error, message) => observed.push(message.subject) });
  for (const service of Object.values(serviceNames)) identities.set(service, await connectAs(service));
}, 60_000);

afterAll(async () => {
  for (const identity of identities.values()) await identity.connection.close();
  await observer?.close();
  await system?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

describe.skipIf(natsIsExternal())("NATS permissions on real processes", () => {
  it("the tool-runner cannot publish chat events: a violation, and no subscriber gets the event (docs/security.md case 58)", async () => {
    const { connection, violations } = as("tool-runner");
    const mark = observed.length;
    connection.publish("agent.run.events.s1.r1", encodeJson({ type: "done", response: "forged" }));
    await settle();
    expect(violations).toContainEqual({ operation: "publish", subject: "agent.run.events.s1.r1" });
    expect(observed.slice(mark)).not.toContain("agent.run.events.s1.r1");
    await logged("tool-runner", "Publish", "agent.run.events.s1.r1");
  });

  it("the tool-runner cannot answer registry requests or join the registry in discovery", async () => {
    const { connection, violations } = as("tool-runner");
    let stolen = 0;
    // a denied subscription's callback is called once with the error; only messages count
    const steal = (error: unknown) => void (error ? undefined : stolen++);
    connection.subscribe("registry.agents.get", { queue: "q", callback: steal });
    connection.subscribe("$SRV.PING.registry", { callback: steal });
    await settle();
    expect(violations).toEqual(
      expect.arrayContaining([
        { operation: "subscription", subject: "registry.agents.get" },
        { operation: "subscription", subject: "$SRV.PING.registry" },
      ]),
    );
    // every look-up still reaches the real registry, and only it
    for (let index = 0; index < 20; index++) {
      const reply = await as("gateway").connection.request("registry.agents.get", encodeJson({ agent_id: "idea-coach" }), { timeout: 5_000 });
      expect(reply.json<{ success: boolean }>().success).toBe(true);
    }
    expect(stolen).toBe(0);
  });

  it("the tool-runner cannot pass itself off as the orchestrator in /healthz ($SRV replies trusted by subject)", async () => {
    const { connection, violations } = as("tool-runner");
    const forged = encodeJson({ type: "io.nats.micro.v1.ping_response", name: "orchestrator", id: "forged", version: "0.1.0", metadata: {} });
    // the anonymous ping may be answered by anyone; the ping by name only by that service's user
    const answer = (error: unknown, message: Msg) => void (error ? undefined : message.respond(forged));
    const anonymous = connection.subscribe("$SRV.PING", { callback: answer });
    connection.subscribe("$SRV.PING.orchestrator", { callback: answer });
    await settle();
    expect(violations).toContainEqual({ operation: "subscription", subject: "$SRV.PING.orchestrator" });
    const health = (await (await fetch(`${system.gatewayUrls[0]}/healthz`)).json()) as { services: Record<string, number> };
    expect(health.services["orchestrator"]).toBe(1);
    anonymous.unsubscribe();
  });

  it("the tool-runner cannot call tools, not even through another replica (docs/security.md case 61)", async () => {
    const { connection, violations } = as("tool-runner");
    const mark = observed.length;
    const call = { call_id: "evil-1", context, arguments: { file_path: "{session-folder}/pwned.md", content: "x" } };
    await expect(connection.request("tool.save_output", encodeJson(call), { timeout: 2_000 })).rejects.toThrow(/permissions violation/i);
    connection.publish("tool.save_output", encodeJson(call), { reply: "_INBOX_tool_runner.x" });
    await settle();
    expect(violations).toContainEqual({ operation: "publish", subject: "tool.save_output" });
    expect(observed.slice(mark)).not.toContain("tool.save_output");
    expect(await spacePaths(as("gateway"), chatSpace)).not.toContain("pwned.md");
  });

  it("the tool-runner cannot read other services' replies, nor listen to everything (docs/security.md case 59)", async () => {
    const { connection, violations } = as("tool-runner");
    let read = 0;
    const subjects = ["_INBOX.>", "_INBOX_orchestrator.>", "_INBOX_gateway.>", "agent.>", ">", "tool.*"];
    for (const subject of subjects) connection.subscribe(subject, { callback: (error) => void (error ? undefined : read++) });
    await settle();
    for (const subject of subjects) expect(violations).toContainEqual({ operation: "subscription", subject });
    await as("gateway").connection.request("registry.agents.list", encodeJson({}), { timeout: 5_000 });
    await as("orchestrator").connection.request("registry.agents.get", encodeJson({ agent_id: "idea-coach" }), { timeout: 5_000 });
    await settle();
    expect(read).toBe(0);
    await logged("tool-runner", "Subscription", "_INBOX_orchestrator.>");
  });

  it("the tool-runner has JetStream only for its file store: it cannot delete the run queue, nor read or delete sessions and projects", async () => {
    const { connection, violations } = as("tool-runner");
    const { runRequests, sessionsBucket, projectsBucket, fileContentsStore } = jetStreamNames();
    const forbidden = [
      `$JS.API.STREAM.DELETE.${runRequests}`,
      `$JS.API.STREAM.DELETE.KV_${sessionsBucket}`,
      `$JS.API.STREAM.DELETE.KV_${projectsBucket}`,
      `$JS.API.DIRECT.GET.KV_${sessionsBucket}.$KV.${sessionsBucket}.owner.local.s1`,
      `$JS.API.DIRECT.GET.KV_${projectsBucket}.$KV.${projectsBucket}.default.local`,
      // not even its own store's streams: it creates and uses them, it does not delete them
      `$JS.API.STREAM.DELETE.OBJ_${fileContentsStore}`,
    ];
    for (const subject of forbidden) connection.publish(subject);
    await settle();
    for (const subject of forbidden) expect(violations).toContainEqual({ operation: "publish", subject });
    const manager = await observer.jetstreamManager();
    for (const stream of [runRequests, `KV_${sessionsBucket}`, `KV_${projectsBucket}`, `OBJ_${fileContentsStore}`]) {
      expect((await manager.streams.info(stream)).config.name).toBe(stream);
    }
  });

  it("a responder replies once per request: a second reply is denied (docs/security.md case 60)", async () => {
    const impostor = as("tool-runner");
    let handled = 0;
    impostor.connection.subscribe("tool.list_files", {
      queue: "q",
      callback: (_error, message: Msg) => {
        handled++;
        message.respond(encodeJson({ success: true, entries: [] }));
        message.respond(encodeJson({ success: true, entries: ["second"] }));
      },
    });
    await settle();
    // 20 calls in parallel: the queue group hands some to the impostor (all of them missing it: 1 in a million)
    const counts = await Promise.all(
      Array.from({ length: 20 }, async (_unused, index) => {
        const call = { call_id: `list-${index}`, context, arguments: { path: "{session-folder}" } };
        const replies = await as("orchestrator").connection.requestMany("tool.list_files", encodeJson(call), { strategy: RequestStrategy.Timer, maxWait: 500 });
        let count = 0;
        for await (const _reply of replies) count++;
        return count;
      }),
    );
    expect(counts).toEqual(Array.from({ length: 20 }, () => 1));
    expect(handled).toBeGreaterThan(0);
    expect(impostor.violations.filter((violation) => violation.operation === "publish" && violation.subject.startsWith("_INBOX_orchestrator."))).toHaveLength(handled);
  });

  it("the gateway cannot call tools or purge a project's files; it still lists, reads and writes them", async () => {
    const { connection, violations } = as("gateway");
    await upload("perm-kept", "docs/brief.md");
    // real turns of other cases call tools: only this case's messages count
    const mark = observed.length;
    const call = { call_id: "gw-1", context, arguments: { file_path: "{session-folder}/from-gateway.md", content: "x" } };
    await expect(connection.request("tool.save_output", encodeJson(call), { timeout: 2_000 })).rejects.toThrow(/permissions violation/i);
    const purge = { space: { kind: "project", id: "perm-kept" } };
    await expect(connection.request("project.files.purge", encodeJson(purge), { timeout: 2_000 })).rejects.toThrow(/permissions violation/i);
    await settle();
    expect(violations).toEqual(
      expect.arrayContaining([
        { operation: "publish", subject: "tool.save_output" },
        { operation: "publish", subject: "project.files.purge" },
      ]),
    );
    expect(observed.slice(mark).filter((subject) => subject === "tool.save_output" || subject === "project.files.purge")).toEqual([]);
    expect(await spacePaths(as("gateway"), chatSpace)).not.toContain("from-gateway.md");
    expect(await spacePaths(as("gateway"), { kind: "project", id: "perm-kept" })).toEqual(["docs/brief.md"]);
    const read = await connection.request("project.files.read", encodeJson({ space: { kind: "project", id: "perm-kept" }, path: "docs/brief.md" }), { timeout: 5_000 });
    expect(read.json<{ content?: string }>()).toMatchObject({ success: true, content: "# kept\n" });
    // the installed BMAD files too, read-only (docs/openai-api.md "Resources")
    const installed = await connection.request("project.files.installed_list", encodeJson({ limit: 1 }), { timeout: 5_000 });
    expect(installed.json<{ files?: unknown[] }>()).toMatchObject({ success: true, files: [expect.objectContaining({ path: expect.any(String) })] });
  });

  it("the orchestrator may purge the files of a deleted project", async () => {
    await upload("perm-deleted", "docs/prd.md");
    // only this test's violations: in another order the denial test before it leaves the orchestrator's forged writes
    const mark = as("orchestrator").violations.length;
    const reply = await as("orchestrator").connection.request("project.files.purge", encodeJson({ space: { kind: "project", id: "perm-deleted" } }), { timeout: 5_000 });
    expect(reply.json<{ success: boolean; files?: number }>()).toEqual({ success: true, files: 1 });
    expect(await spacePaths(as("gateway"), { kind: "project", id: "perm-deleted" })).toEqual([]);
    // a round trip after the purge: the server sends a violation before the answer to a later ping
    await as("orchestrator").connection.flush();
    expect(as("orchestrator").violations.slice(mark).filter((violation) => violation.subject.startsWith("project.files."))).toEqual([]);
  });

  it("each user is denied what the matrix does not give it", async () => {
    const denied: Record<ServiceName, string[]> = {
      // only the gateway asks for the installed BMAD files (project.files.installed_*, docs/security.md case 249)
      registry: ["agent.run.events.s1.r1", "tool.read_file", "agent.run.request.s1", "$JS.API.STREAM.LIST", "$KV.sessions.s1", "project.files.read", "project.files.installed_list", "$KV.file_index.idx", "audit.p1._.project_deleted", "$KV.personal_tokens.hash.x"],
      // only the gateway queues turns; nobody but the orchestrator (and admin) touches JetStream set-up; it changes files only through tools
      orchestrator: ["agent.run.request.s1", "registry.changed", "project.files.write", "project.files.delete", "project.files.installed_read", "$JS.API.STREAM.DELETE.RUN_EVENTS", "$KV.other.key", "$KV.file_index.idx", "audit.p1._.member_put", "$KV.personal_tokens.hash.x", "$JS.API.CONSUMER.CREATE.AUDIT"],
      // the gateway cannot forge events, queue a subagent (which skips the session checks), write sessions or projects behind the
      // orchestrator's back, purge files or touch the file store's buckets behind the tool-runner's
      gateway: [
        "agent.run.events.s1.r1",
        "agent.run.request.s1.r1",
        "agent.run.child.events.s1.r1",
        "tool.read_file",
        "$KV.sessions.s1",
        "$KV.projects.project.p1",
        // nor add to or reset what a project or a user spent (the budgets read it)
        "$KV.spending.p.p1.2026-11",
        "$JS.API.STREAM.DELETE.RUN_EVENTS",
        "$JS.API.CONSUMER.CREATE.KV_sessions",
        "project.files.purge",
        "$KV.file_index.idx",
        // uploads go into the staging store only: the tool-runner alone decides what becomes a content, and the snapshot pointer
        "$O.file_contents.M.x",
        "$O.file_contents.C.x",
        "$JS.API.STREAM.PURGE.OBJ_file_contents",
        "$JS.API.STREAM.DELETE.OBJ_file_uploads",
        "$KV.file_index.src.p.p1",
        // the audit log is kept, never removed (only its limits drop old records)
        "$JS.API.STREAM.DELETE.AUDIT",
        "$JS.API.STREAM.PURGE.AUDIT",
      ],
      // the tool-runner answers; it asks nothing of anyone (no turns, no tools, no projects, no purge) and touches no bucket but its own
      "tool-runner": ["registry.changed", "agent.run.cancel.s1", "agent.session.list", "agent.project.get", "agent.run.request.s1", "tool.read_file", "project.files.purge", "$KV.sessions.s1", "$KV.projects.project.p1", "$KV.spending.u.bG9jYWw", "agent.usage.user", "agent.models.routes",
        // of the audit log only an agent's write: no other act, no reading, no tokens (docs/security.md case 205)
        "audit.p1.YWxpY2U.member_put", "audit.p1.YWxpY2U.project_deleted", "$JS.API.CONSUMER.CREATE.AUDIT", "$KV.personal_tokens.hash.x"],
    };
    const mark = observed.length;
    for (const [service, subjects] of Object.entries(denied) as Array<[ServiceName, string[]]>) {
      for (const subject of subjects) as(service).connection.publish(subject, encodeJson({ forged: true }));
    }
    await settle();
    for (const [service, subjects] of Object.entries(denied) as Array<[ServiceName, string[]]>) {
      for (const subject of subjects) {
        expect(as(service).violations, `${service} → ${subject}`).toContainEqual({ operation: "publish", subject });
        await logged(service, "Publish", subject, `${service} → ${subject} in the server log`);
      }
    }
    const forged = Object.values(denied).flat();
    expect(observed.slice(mark).filter((subject) => forged.includes(subject))).toEqual([]);
  });

  it("refuses a connection without credentials or with a wrong password; a service then stops at once (docs/security.md case 62)", async () => {
    await expect(connect({ servers: system.nats.url })).rejects.toMatchObject({ code: "AUTHORIZATION_VIOLATION" });
    await expect(connect({ servers: system.nats.url, user: "registry", pass: "wrong-password-0" })).rejects.toMatchObject({ code: "AUTHORIZATION_VIOLATION" });
    const registry = startServiceProcess("registry", { ...system.envOf("registry"), NATS_USER: "registry", NATS_PASSWORD: "wrong-password-0" });
    await registry.waitForLine((line) => String(line["msg"]).includes('NATS refused the credentials of user "registry"'), 10_000);
    const [code] = (await once(registry.child, "exit")) as [number | null];
    // "at once": it exits by itself with 1 after the refusal, rather than retrying until killed
    expect(code).toBe(1);
  });

  it("left the real system working: no violation by the services themselves", async () => {
    const response = await fetch(`${system.gatewayUrls[0]}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "idea-coach", message: "hello" }),
    });
    expect(await response.json()).toMatchObject({ success: true, response: "ok" });
    // a subagent: the orchestrator queues the child on agent.run.request.<session>.<run>, follows its events, relays them
    const delegated = await fetch(`${system.gatewayUrls[0]}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "bmm/delegator", message: "delegate" }),
    });
    expect(await delegated.json()).toMatchObject({ success: true, response: "ok: child ok" });
    // a chat that opens with its agent's greeting, and the greeting alone: gateway → orchestrator, whose start reads through the tool-runner
    const greeted = await fetch(`${system.gatewayUrls[0]}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: "idea-coach" }) });
    expect({ status: greeted.status, body: await greeted.json() }).toMatchObject({ status: 201, body: { success: true, greeting: { text: expect.any(String) } } });
    expect((await fetch(`${system.gatewayUrls[0]}/api/agents/idea-coach/greeting`)).status).toBe(200);
    const byServices = permissionViolations(system.nats).filter((line) => /nats\.js:(registry|tool-runner|orchestrator|gateway)-\d+/.test(line));
    expect(byServices).toEqual([]);
  });
});
