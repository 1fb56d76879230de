import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const lifecycle = fileURLToPath(new URL("./service-lifecycle.ts", import.meta.url));
const logger = fileURLToPath(new URL("./logger.ts", import.meta.url));

/**
 * A stand-in service run by runService: its start takes `startMs` (null: it never ends, as a first connection to
 * an unreachable NATS), its stop 100 ms, and it would otherwise run for a minute (exit 3). Started with or without an IPC channel, as a
 * launcher would.
 */
function service(options: { ipc: boolean; startMs?: number | null }) {
  const startMs = options.startMs === undefined ? 0 : options.startMs;
  const source = [
    `import { runService } from ${JSON.stringify(lifecycle)};`,
    `import { createLogger } from ${JSON.stringify(logger)};`,
    `const keepAlive = setTimeout(() => process.exit(3), 60_000);`,
    `const logger = createLogger("stand-in");`,
    `await runService(logger, {`,
    // "starting" is printed once runService has set the handlers up, right after calling start
    `  start: () => new Promise((resolve) => { setImmediate(() => console.log(JSON.stringify({ msg: "starting" }))); ${startMs === null ? "void resolve;" : `setTimeout(resolve, ${startMs});`} }),`,
    `  stop: async () => { await new Promise((resolve) => setTimeout(resolve, 100)); clearTimeout(keepAlive); },`,
    `  deadlineMs: 5_000,`,
    `  startWaitMs: 1_000,`,
    `});`,
    `console.log(JSON.stringify({ msg: "serving" }));`,
  ].join("\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], {
    stdio: ["ignore", "pipe", "pipe", ...(options.ipc ? (["ipc"] as const) : [])],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const printed = async (msg: string) => {
    while (!output.includes(`"msg":"${msg}"`)) {
      if (child.exitCode !== null) throw new Error(`exited early: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, exited, serving: () => printed("serving"), starting: () => printed("starting"), output: () => output };
}

describe("runService, stopOnSignals and the launcher's lifeline (docs/security.md case 144)", () => {
  it("stops as on SIGTERM, exit 0, when the launcher's end of the IPC channel closes", async () => {
    const stand = service({ ipc: true });
    await stand.serving();
    // what the kernel does when the launcher dies, however it dies
    stand.child.disconnect();
    const [code] = await stand.exited;
    expect(code).toBe(0);
    expect(stand.output()).toContain("the launcher that started this process is gone");
    expect(stand.output()).toContain('"msg":"stopped"');
  }, 20_000);

  it("sees the launcher gone while still starting: the start ends, then what it started is stopped, exit 0", async () => {
    const stand = service({ ipc: true, startMs: 500 });
    stand.child.disconnect();
    const [code] = await stand.exited;
    expect(code).toBe(0);
    expect(stand.output()).toContain("the launcher that started this process is gone");
    expect(stand.output()).toContain('"msg":"stopped"');
  }, 20_000);

  it("ends a start that does not end, exit 1, when the launcher is gone: no orphan waits for NATS for ever", async () => {
    const stand = service({ ipc: true, startMs: null });
    stand.child.disconnect();
    const [code] = await stand.exited;
    expect(code).toBe(1);
    expect(stand.output()).toContain("the launcher that started this process is gone");
    expect(stand.output()).toContain("still starting: the stop waits for the start to end");
    expect(stand.output()).toContain("still starting 1000 ms after the stop was asked");
  }, 20_000);

  it("ends a start that does not end, exit 1, on SIGTERM", async () => {
    const stand = service({ ipc: false, startMs: null });
    await stand.starting();
    stand.child.kill("SIGTERM");
    const [code, signal] = await stand.exited;
    expect({ code, signal }).toEqual({ code: 1, signal: null });
    expect(stand.output()).toContain('"signal":"SIGTERM"');
    expect(stand.output()).toContain("still starting: the stop waits for the start to end");
    expect(stand.output()).toContain("still starting 1000 ms after the stop was asked");
  }, 20_000);

  it("stops on SIGTERM within its deadline, exit 0", async () => {
    const stand = service({ ipc: false });
    await stand.serving();
    stand.child.kill("SIGTERM");
    const [code] = await stand.exited;
    expect(code).toBe(0);
    expect(stand.output()).toContain('"signal":"SIGTERM"');
  }, 20_000);
});
