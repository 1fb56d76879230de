import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const lifecycle = fileURLToPath(new URL("./service-lifecycle.ts", import.meta.url));
const logger = fileURLToPath(new URL("./logger.ts", import.meta.url));

/**
 * A stand-in service: after `startMs` (its start-up) it calls stopOnSignals with a stop that takes 100 ms,
 * and would otherwise run for a minute. Started with or without an IPC channel, as a launcher would.
 */
function service(options: { ipc: boolean; startMs?: number }) {
  const source = [
    `import { stopOnSignals } from ${JSON.stringify(lifecycle)};`,
    `import { createLogger } from ${JSON.stringify(logger)};`,
    `const keepAlive = setTimeout(() => process.exit(3), 60_000);`,
    `await new Promise((resolve) => setTimeout(resolve, ${options.startMs ?? 0}));`,
    `stopOnSignals(createLogger("stand-in"), async () => { await new Promise((resolve) => setTimeout(resolve, 100)); clearTimeout(keepAlive); }, 5_000);`,
    `console.log(JSON.stringify({ msg: "serving" }));`,
  ].join("\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], {
    stdio: ["ignore", "pipe", "pipe", ...(options.ipc ? (["ipc"] as const) : [])],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const serving = async () => {
    while (!output.includes('"serving"')) {
      if (child.exitCode !== null) throw new Error(`exited early: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, exited, serving, output: () => output };
}

describe("stopOnSignals and the launcher's lifeline (docs/security.md case 144)", () => {
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

  it("stops at once when the launcher was gone before the service finished starting", async () => {
    const stand = service({ ipc: true, startMs: 500 });
    stand.child.disconnect();
    const [code] = await stand.exited;
    expect(code).toBe(0);
    expect(stand.output()).toContain("the launcher that started this process is gone");
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
