/**
 * Fault 2 (docs/security.md cases 69, 145): one of two tool-runner processes is SIGKILLed in the middle of a
 * burst of 200 `save_output` calls. The calls come from the orchestrator's own ToolClient (orchestrator
 * credentials, 3 s timeout), as a turn would make them. A call the dead replica held times out and is not
 * sent again: the model hears SERVICE_TIMEOUT with `may_have_run` and checks before calling again. Every
 * other call completes on the surviving replica; every file in the store holds exactly its content (never half
 * of it), each chat's file index lists each file once, at one revision, and only whole files, and no call is
 * sent or run twice. The files are read back from the store through the survivor (`project.files.*`).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats, createLogger, encodeJson, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { FilesListReply, FilesReadReply, type FileListing, type ToolResult } from "@agent-orchestrator/shared/wire";
import { ToolClient } from "@agent-orchestrator/orchestrator";
import { startTestNats, testNatsCredentials, type TestNats } from "@agent-orchestrator/testing/nats-harness";
import { repoRoot, startServiceProcess, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";

const calls = 200;
const inFlight = 48;
const killAfter = 50;
const contentBytes = 64 * 1024;
const sessions = Array.from({ length: 4 }, (_unused, index) => `kill-${index}-${randomUUID().slice(0, 8)}`);
const bundlePath = "bmad/custom/bundles/idea-studio";

let nats: TestNats;
/** the folder of sessions from before projects the tool-runners would move at start: empty */
let legacyOutputRoot: string;
let runners: ServiceProcess[];
let orchestrator: NatsConnection;
let observer: NatsConnection;
/** every request on tool.save_output, by call id: more than one would mean the call was sent again */
const requestsByCallId = new Map<string, number>();

const contentOf = (index: number) => `call ${index}\n${"abcdefghijklmnopqrstuvwxyz0123456789\n".repeat(contentBytes / 37)}`;
const sessionOf = (index: number) => sessions[index % sessions.length] as string;

/** The call ids a runner finished executing (its debug log), counted. */
function executedBy(runner: ServiceProcess): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of runner.lines) {
    if (line["msg"] === "tool call done" && typeof line["call_id"] === "string") counts.set(line["call_id"], (counts.get(line["call_id"]) ?? 0) + 1);
  }
  return counts;
}

/** A chat's files as the store lists them now, asked of whichever tool-runner answers. */
async function listed(session: string): Promise<FileListing[]> {
  const reply = await observer.request("project.files.list", encodeJson({ space: { kind: "session", id: session } }), { timeout: 5_000 });
  const parsed = FilesListReply.parse(reply.json());
  if (!parsed.success) throw new Error(`list ${session}: ${JSON.stringify(parsed.error)}`);
  return parsed.files;
}

/** A file's content in the store, or undefined when the store has no such file. */
async function stored(session: string, path: string): Promise<string | undefined> {
  const reply = await observer.request("project.files.read", encodeJson({ space: { kind: "session", id: session }, path }), { timeout: 5_000 });
  const parsed = FilesReadReply.parse(reply.json());
  if (!parsed.success) {
    if (parsed.error.code === "FILE_NOT_FOUND") return undefined;
    throw new Error(`read ${session}/${path}: ${JSON.stringify(parsed.error)}`);
  }
  expect(parsed.truncated).toBe(false);
  return parsed.content;
}

beforeAll(async () => {
  nats = await startTestNats();
  legacyOutputRoot = await mkdtemp(join(tmpdir(), "ao-sigkill-"));
  const env = { NATS_URL: nats.url, BMAD_ROOT: repoRoot, OUTPUT_ROOT: legacyOutputRoot, LOG_LEVEL: "debug" };
  runners = [startServiceProcess("tool-runner", env), startServiceProcess("tool-runner", env)];
  await Promise.all(runners.map((runner) => runner.waitForLine((line) => line["msg"] === "tool-runner serving")));
  const { NATS_USER, NATS_PASSWORD } = testNatsCredentials("orchestrator");
  orchestrator = await connectNats({ url: nats.url, service: "orchestrator", logger: createLogger("test", "silent"), credentials: { user: NATS_USER, password: NATS_PASSWORD } });
  observer = await connect({ servers: nats.url, user: "admin", pass: testNatsCredentials("admin").NATS_PASSWORD });
  observer.subscribe("tool.save_output", {
    callback: (_error, message) => {
      const callId = message.json<{ call_id: string }>().call_id;
      requestsByCallId.set(callId, (requestsByCallId.get(callId) ?? 0) + 1);
    },
  });
  await observer.flush();
}, 60_000);

afterAll(async () => {
  await orchestrator?.close();
  await observer?.close();
  await Promise.all((runners ?? []).map((runner) => runner.stop("SIGKILL")));
  await nats?.stop();
  await rm(legacyOutputRoot, { recursive: true, force: true });
});

describe("SIGKILL of one of two tool-runners during a burst of 200 tool calls", () => {
  let results: ToolResult[];
  let slowestMs = 0;
  let killed: ServiceProcess;
  let survivor: ServiceProcess;

  beforeAll(async () => {
    [killed, survivor] = runners as [ServiceProcess, ServiceProcess];
    const client = new ToolClient(orchestrator, { toolTimeoutMs: 3_000, commandTimeoutMaxMs: 3_000, scriptTimeoutMs: 3_000 });
    let completed = 0;
    const indexes = Array.from({ length: calls }, (_unused, index) => index);
    results = await mapWithConcurrency(indexes, inFlight, async (index) => {
      const context = { session_id: sessionOf(index), bundle_path: bundlePath, project_id: "sigkill-project", user: "local", agent_id: "idea-coach" };
      const started = Date.now();
      const result = await client.call("save_output", `burst:call_${index}`, context, { file_path: `{session-folder}/burst/f${index}.md`, content: contentOf(index) });
      slowestMs = Math.max(slowestMs, Date.now() - started);
      if (++completed === killAfter) killed.child.kill("SIGKILL");
      return result;
    });
  }, 120_000);

  it("sends no call twice: those the dead replica held answer SERVICE_TIMEOUT saying they may have run, the rest complete (docs/security.md case 145)", () => {
    expect(killed.child.signalCode).toBe("SIGKILL");
    expect([...requestsByCallId.values()].filter((count) => count > 1)).toEqual([]);
    expect(requestsByCallId.size).toBe(calls);
    const failures = results.filter((result) => !result.success);
    // calls were in flight on the killed replica: each waited one timeout, and the model hears it may have run
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toMatchObject({ success: false, error: { code: "SERVICE_TIMEOUT", message: expect.stringContaining("was not sent again") }, may_have_run: true });
    }
    expect(executedBy(killed).size).toBeGreaterThan(0);
    console.info(`tool-runner SIGKILL: ${calls} calls, ${executedBy(killed).size} done by the killed replica before it died, ${failures.length} timed out and were not sent again, slowest ${slowestMs} ms`);
  });

  it("leaves every file whole: exactly its content, never half of it; a call that timed out left its file whole or none", async () => {
    let timedOutButStored = 0;
    for (let index = 0; index < calls; index++) {
      const content = await stored(sessionOf(index), `burst/f${index}.md`);
      if (results[index]?.success) expect(content).toBe(contentOf(index));
      else if (content !== undefined) {
        expect(content).toBe(contentOf(index));
        timedOutButStored++;
      }
    }
    // nothing but the burst's files: a write cut short leaves no name of its own behind
    for (const session of sessions) {
      expect((await listed(session)).map((file) => file.path).filter((path) => !/^burst\/f\d+\.md$/.test(path))).toEqual([]);
    }
    console.info(`tool-runner SIGKILL: ${timedOutButStored} timed-out call(s) had stored their whole file before the replica died`);
  });

  it("records each file once in its chat's index, at one revision: every completed call's, and a timed-out call's only when its file is whole", async () => {
    for (const session of sessions) {
      const files = await listed(session);
      const paths = files.map((file) => file.path);
      expect(new Set(paths).size).toBe(paths.length);
      // written once: a second write of the same call would have made a second revision
      expect(files.filter((file) => file.revision !== 1)).toEqual([]);
      const indexes = Array.from({ length: calls }, (_unused, index) => index).filter((index) => sessionOf(index) === session);
      for (const index of indexes) {
        const file = files.find((entry) => entry.path === `burst/f${index}.md`);
        if (results[index]?.success) expect(file).toMatchObject({ size: Buffer.byteLength(contentOf(index)), author: { session_id: session, agent_id: "idea-coach" } });
        else if (file) expect(await stored(session, file.path)).toBe(contentOf(index));
      }
    }
  });

  it("runs no call twice: each ran on one replica at most, once", () => {
    const onSurvivor = executedBy(survivor);
    const onKilled = executedBy(killed);
    expect([...onSurvivor.values(), ...onKilled.values()].filter((count) => count > 1)).toEqual([]);
    expect([...onKilled.keys()].filter((callId) => onSurvivor.has(callId))).toEqual([]);
  });
});
