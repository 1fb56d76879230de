/**
 * Runs the four services as separate processes from their built entry points
 * (`node services/<name>/dist/main.js`), the way production runs them: each one connects to NATS as its
 * own user, so the permission config of deploy/nats is exercised by every test that starts processes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { natsIsExternal, testNatsCredentials } from "./nats-harness.js";

/**
 * How long a service may take to log that it is up. Generous on purpose: on a loaded 2-core machine four Node
 * processes compiling at once take well over 15 s, and a service that crashes is reported at once anyway (its exit
 * is checked on every wait), so only a hang waits this long.
 */
export const SERVICE_START_MS = 60_000;

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

export type ServiceProcessName = "registry" | "tool-runner" | "orchestrator" | "gateway";

export interface ServiceProcess {
  name: ServiceProcessName;
  child: ChildProcess;
  /** every log line so far, parsed when it is JSON */
  lines: Array<Record<string, unknown>>;
  waitForLine(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts one service. It connects as its own NATS user with the harness's test password, unless `env`
 * names a NATS_USER itself or the server is an external NATS_URL (whose users the harness does not know).
 * `nodeArgs` go to node before the entry point (the benchmark's `--cpu-prof`, which NODE_OPTIONS refuses).
 * `cwd` is the process's working directory (the repository by default): a replica started elsewhere shows
 * that nothing it serves depends on the folder it runs in.
 */
export function startServiceProcess(
  name: ServiceProcessName,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  options: { cwd?: string } = {},
): ServiceProcess {
  const credentials = env["NATS_USER"] !== undefined || natsIsExternal() ? {} : testNatsCredentials(name);
  const child = spawn(process.execPath, [...nodeArgs, join(repoRoot, "services", name, "dist", "main.js")], {
    cwd: options.cwd ?? repoRoot,
    env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "info", ...credentials, ...env },
    // the IPC channel is the service's lifeline, as under `npm start`: a test process killed before its
    // afterAll (a timeout, a SIGKILL) takes its services with it instead of leaving them running
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  // it only watches: it must not keep the test process alive
  child.channel?.unref();
  const lines: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  const record = (text: string) => {
    try {
      lines.push(JSON.parse(text) as Record<string, unknown>);
    } catch {
      lines.push({ msg: text });
    }
    for (const wake of waiters) wake();
  };
  createInterface({ input: child.stdout! }).on("line", record);
  createInterface({ input: child.stderr! }).on("line", record);
  const exited = once(child, "exit").then(([code]) => code as number | null);

  return {
    name,
    child,
    lines,
    async waitForLine(predicate, timeoutMs = SERVICE_START_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = lines.find(predicate);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${JSON.stringify(lines.slice(-5))}`);
        if (Date.now() > deadline) throw new Error(`${name}: no matching log line in ${timeoutMs} ms: ${JSON.stringify(lines.slice(-5))}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          void sleep(100).then(wake);
        });
      }
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts all four services and resolves with the gateway's URL once /healthz counts every service. */
export async function startSystem(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<{ url: string; processes: ServiceProcess[]; stop(): Promise<void> }> {
  const processes = (["registry", "tool-runner", "orchestrator", "gateway"] as const).map((name) =>
    // the gateway on a free port unless the test needs a known one (OIDC_REDIRECT_URL names it)
    startServiceProcess(name, name === "gateway" ? { PORT: "0", ...env } : env, nodeArgs),
  );
  const stop = async () => {
    await Promise.all(processes.map((service) => service.stop()));
  };
  try {
    const url = await healthyGatewayUrl(processes[3] as ServiceProcess, SERVICE_START_MS);
    return { url, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The URL a gateway process listens on, once its `/healthz` says the system is whole (every service answers). */
export async function healthyGatewayUrl(gateway: ServiceProcess, timeoutMs: number): Promise<string> {
  const line = await gateway.waitForLine((entry) => typeof entry["url"] === "string" && String(entry["msg"]).startsWith("gateway listening"), timeoutMs);
  const url = String(line["url"]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string };
    if (health.status === "ok") return url;
    if (Date.now() > deadline) throw new Error(`the system did not become healthy: ${JSON.stringify(health)}`);
    await sleep(100);
  }
}
