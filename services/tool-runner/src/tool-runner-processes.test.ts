import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jetStreamNames, subjects } from "@agent-orchestrator/shared/wire";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSandboxFixture, type SandboxFixture } from "./testing/sandbox-fixture.js";

// Two real tool-runner processes (the built entry point) on one NATS and no shared folder: the scale-out case.
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const entryPoint = path.join(repoRoot, "services/tool-runner/dist/main.js");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface RunnerProcess {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

let connection: NatsConnection;
let fixture: SandboxFixture;
const prefix = `p${randomUUID().slice(0, 8)}`;
const runners: RunnerProcess[] = [];

function startProcess(): Promise<RunnerProcess> {
  const child = spawn(process.execPath, [entryPoint], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NATS_URL: inject("natsUrl"),
      BMAD_ROOT: fixture.project,
      OUTPUT_ROOT: path.join(fixture.base, "out"),
      SCRIPTS: "off",
      SUBJECT_PREFIX: prefix,
      // 200 calls land on two processes at once: room for all, so this test is about the store, not BUSY
      TOOL_CONCURRENCY: "256",
      LOG_LEVEL: "debug",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tool-runner did not start:\n${output.join("")}`)), 15_000);
    const collect = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join("").includes("tool-runner serving")) {
        clearTimeout(timer);
        resolve({ child, output, exited });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    void exited.then((code) => reject(new Error(`tool-runner exited with ${code}:\n${output.join("")}`)));
  });
}

async function request(subject: string, body: unknown): Promise<Record<string, any>> {
  const reply = await connection.request(`${prefix}.${subject}`, encoder.encode(JSON.stringify(body)), { timeout: 20_000 });
  return JSON.parse(decoder.decode(reply.data)) as Record<string, any>;
}

async function save(index: number, folder: string): Promise<Record<string, unknown>> {
  const request = {
    call_id: `save-${index}`,
    context: fixture.toolContext,
    arguments: { file_path: `{session-folder}/${folder}/f${index}.md`, content: `file ${index}\n` },
  };
  const reply = await connection.request(`${prefix}.${subjects.tool("save_output")}`, encoder.encode(JSON.stringify(request)), { timeout: 20_000 });
  return JSON.parse(decoder.decode(reply.data)) as Record<string, unknown>;
}

beforeAll(async () => {
  // the processes run the built code: build it (incremental, quick when up to date)
  execFileSync("npx", ["tsc", "-b", "services/tool-runner"], { cwd: repoRoot, stdio: "pipe" });
  fixture = await createSandboxFixture();
  connection = await connect({ servers: inject("natsUrl") });
  runners.push(await startProcess(), await startProcess());
}, 120_000);

afterAll(async () => {
  for (const runner of runners) if (runner.child.exitCode === null) runner.child.kill("SIGKILL");
  await Promise.all(runners.map((runner) => runner.exited));
  if (connection) {
    // the buckets the processes made, named after their prefix
    const names = jetStreamNames(`${prefix}.`);
    const manager = await connection.jetstreamManager();
    const streams = [`KV_${names.fileIndexBucket}`, `KV_${names.fileRevisionsBucket}`, `OBJ_${names.fileContentsStore}`, `KV_${names.toolCallsBucket}`];
    await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
  }
  await connection?.drain();
  await fixture?.cleanup();
});

describe("two tool-runner processes on one NATS", () => {
  it("record 200 parallel save_output calls into one chat: 200 files, each once, none lost", async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, (_, index) => save(index, "parallel")));
    expect(replies.filter((reply) => reply["success"] !== true).map((reply) => reply["error"])).toEqual([]);
    expect(new Set(replies.map((reply) => reply["revision"]))).toEqual(new Set([1]));
    const listing = await request(subjects.files("list"), { space: { kind: "session", id: "s1" }, prefix: "parallel" });
    // the other case writes into the same chat, in a folder of its own
    const parallel = (listing["files"] as Array<{ path: string; revision: number }>).map((file) => file.path);
    expect(parallel).toHaveLength(200);
    expect(new Set(parallel).size).toBe(200);
    expect(await request(subjects.files("read"), { space: { kind: "session", id: "s1" }, path: "parallel/f123.md" })).toMatchObject({ success: true, content: "file 123\n" });
    // the queue group shared the work between the two processes
    for (const runner of runners) expect(runner.output.join("").split("tool call done").length - 1).toBeGreaterThan(0);
  });

  it("answer the calls already received on SIGTERM and exit 0 (docs/security.md case 70)", async () => {
    const calls = Array.from({ length: 20 }, (_, index) => save(1000 + index, "drain"));
    await connection.flush();
    for (const runner of runners) runner.child.kill("SIGTERM");
    for (const reply of await Promise.all(calls)) expect(reply).toMatchObject({ success: true });
    expect(await Promise.all(runners.map((runner) => runner.exited))).toEqual([0, 0]);
    // the other case needs two running processes, whichever order they run in
    runners.splice(0, runners.length, await startProcess(), await startProcess());
  });
});
