/**
 * Fault 2 (docs/security.md case 69): one of two tool-runner processes is SIGKILLed in the middle of a burst of
 * 200 `save_output` calls. The calls come from the orchestrator's own ToolClient (orchestrator
 * credentials, 3 s timeout, retried by call id), as a turn would make them. Every call must complete on
 * the surviving replica, every file must hold exactly its content (never half of it), each manifest must
 * list each file once, and no call may run twice where it was retried.
 */
import { randomUUID } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats, createLogger, mapWithConcurrency, requestJson, SessionManifest, SessionManifestReply, type ToolResult } from "@agent-orchestrator/shared";
import { ToolClient } from "../../services/orchestrator/src/tool-client.js";
import { startTestNats, testNatsCredentials, type TestNats } from "../support/nats-harness.js";
import { repoRoot, startServiceProcess, type ServiceProcess } from "../support/service-processes.js";

const calls = 200;
const inFlight = 48;
const killAfter = 50;
const contentBytes = 64 * 1024;
const sessions = Array.from({ length: 4 }, (_unused, index) => `kill-${index}-${randomUUID().slice(0, 8)}`);
const bundlePath = "bmad/custom/bundles/idea-studio";

let nats: TestNats;
let outputRoot: string;
let runners: ServiceProcess[];
let orchestrator: NatsConnection;
let observer: NatsConnection;
/** every request on tool.save_output, by call id: more than one means the call was retried */
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

beforeAll(async () => {
  nats = await startTestNats();
  outputRoot = await mkdtemp(join(tmpdir(), "ao-sigkill-"));
  const env = { NATS_URL: nats.url, BMAD_ROOT: repoRoot, OUTPUT_ROOT: outputRoot, LOG_LEVEL: "debug" };
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
  // the orchestrator describes each session first, which creates its folder and manifest
  for (const session of sessions) {
    const update = { session_id: session, agent: "idea-coach", bundle: "idea-studio", owner: "local", status: "running" };
    const reply = await requestJson(orchestrator, "session.manifest.update", update, SessionManifestReply, { timeoutMs: 5_000 });
    expect(reply.success).toBe(true);
  }
}, 60_000);

afterAll(async () => {
  await orchestrator?.close();
  await observer?.close();
  await Promise.all((runners ?? []).map((runner) => runner.stop("SIGKILL")));
  await nats?.stop();
  await rm(outputRoot, { recursive: true, force: true });
});

describe("SIGKILL of one of two tool-runners during a burst of 200 tool calls", () => {
  let results: ToolResult[];
  let slowestMs = 0;
  let killed: ServiceProcess;
  let survivor: ServiceProcess;

  beforeAll(async () => {
    [killed, survivor] = runners as [ServiceProcess, ServiceProcess];
    const client = new ToolClient(orchestrator, 3_000);
    let completed = 0;
    const indexes = Array.from({ length: calls }, (_unused, index) => index);
    results = await mapWithConcurrency(indexes, inFlight, async (index) => {
      const context = { session_id: sessionOf(index), bundle_path: bundlePath };
      const started = Date.now();
      const result = await client.call("save_output", `burst:call_${index}`, context, { file_path: `{session-folder}/burst/f${index}.md`, content: contentOf(index) });
      slowestMs = Math.max(slowestMs, Date.now() - started);
      if (++completed === killAfter) killed.child.kill("SIGKILL");
      return result;
    });
  }, 120_000);

  it("completes every call, retrying on the surviving replica those the dead one took", () => {
    expect(killed.child.signalCode).toBe("SIGKILL");
    const failures = results.map((result, index) => ({ index, result })).filter(({ result }) => !result.success);
    expect(failures).toEqual([]);
    const retried = [...requestsByCallId.values()].filter((count) => count > 1).length;
    // calls were in flight on the killed replica: they timed out and went out again under the same id
    expect(retried).toBeGreaterThan(0);
    expect(executedBy(killed).size).toBeGreaterThan(0);
    console.info(`tool-runner SIGKILL: ${calls} calls, ${executedBy(killed).size} done by the killed replica before it died, ${retried} retried, slowest ${slowestMs} ms`);
  });

  it("leaves every file whole: exactly its content, never half of it", async () => {
    for (let index = 0; index < calls; index++) {
      expect(await readFile(join(outputRoot, sessionOf(index), "burst", `f${index}.md`), "utf8")).toBe(contentOf(index));
    }
    // a temp file the killed replica was writing may be left, under its own hidden name, never as a target
    let temps = 0;
    for (const session of sessions) {
      const names = await readdir(join(outputRoot, session, "burst"));
      expect(names.filter((name) => !name.startsWith(".ao-") && !/^f\d+\.md$/.test(name))).toEqual([]);
      temps += names.filter((name) => name.startsWith(".ao-")).length;
    }
    console.info(`tool-runner SIGKILL: ${temps} temp file(s) left by writes cut short`);
  });

  it("records each file once in its session's manifest", async () => {
    for (const session of sessions) {
      const manifest = SessionManifest.parse(JSON.parse(await readFile(join(outputRoot, session, "manifest.json"), "utf8")));
      const paths = manifest.files.map((file) => file.path).sort();
      const expected = Array.from({ length: calls }, (_unused, index) => index)
        .filter((index) => sessionOf(index) === session)
        .map((index) => `{session-folder}/burst/f${index}.md`)
        .sort();
      expect(paths).toEqual(expected);
    }
  });

  it("runs no call twice: the survivor ran each at most once, and only calls the dead replica never answered ran on both", () => {
    const onSurvivor = executedBy(survivor);
    expect([...onSurvivor.values()].filter((count) => count > 1)).toEqual([]);
    const onKilled = executedBy(killed);
    const onBoth = [...onKilled.keys()].filter((callId) => onSurvivor.has(callId));
    // a call can run on both only when the killed replica finished it but died before its reply left:
    // such a call was necessarily retried, and its effect (the same bytes, one manifest entry) is the same
    for (const callId of onBoth) expect(requestsByCallId.get(callId)).toBeGreaterThan(1);
    console.info(`tool-runner SIGKILL: ${onBoth.length} call(s) finished on the killed replica whose reply was lost, run again on the survivor`);
  });
});
