/**
 * `npm start`: the whole system on one machine. Uses NATS_URL, or starts a local nats-server with
 * JetStream data under ./data/nats and the production permission config (deploy/nats/nats-server.conf);
 * then starts the four services as four processes, each connected as its own NATS user, prints the URL,
 * and stops everything on Ctrl-C or SIGTERM (a second one stops at once).
 *
 * Each service gets an IPC channel as its lifeline: if this launcher dies, however it dies, the kernel closes
 * the channel and every service stops as on SIGTERM (shared/src/runtime/service-lifecycle.ts, docs/security.md case 144).
 * The launcher stops too when its own parent (npm) is gone. package.json runs it as `node --import tsx`, not
 * through tsx's CLI, which SIGKILLs a child that does not confirm a relayed signal within 30 ms (docs/security.md case 143). Each service that serves metrics gets its
 * own METRICS_PORT (lib/metrics-ports.ts, docs/security.md case 146).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { formatLogLine } from "./lib/console-line.js";
import { findNatsServerBinary, natsServerMissingHelp, startLocalNats, type LocalNats } from "@agent-orchestrator/testing/local-nats";
import { metricsServices, planMetricsPorts, type MetricsService } from "./lib/metrics-ports.js";
import {
  generatePasswords,
  natsConfigFile,
  natsUsers,
  passwordVariable,
  serverPasswordEnv,
  serviceCredentialsEnv,
  type NatsPasswords,
  type NatsServiceUser,
} from "@agent-orchestrator/testing/nats-users";
import { serviceEnvironment } from "./lib/service-env.js";

const repoRoot = fileURLToPath(new URL("../", import.meta.url));
const services = ["registry", "tool-runner", "orchestrator", "gateway"] as const;
const colours: Record<string, string> = { registry: "35", "tool-runner": "36", orchestrator: "33", gateway: "32", nats: "34" };

function print(source: string, text: string): void {
  const tag = process.stdout.isTTY ? `\x1b[${colours[source] ?? "0"}m${source.padEnd(12)}\x1b[0m` : source.padEnd(12);
  process.stdout.write(`${tag} ${text}\n`);
}

const portIsFree = (port: number, host = "127.0.0.1") =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
      .once("error", () => resolve(false))
      .once("listening", () => probe.close(() => resolve(true)))
      .listen(port, host);
  });

/**
 * Each metrics service's own port (lib/metrics-ports.ts), checked before anything starts: a port taken or
 * out of range stops the launch with a clear message instead of one service failing to bind later.
 */
async function metricsPorts(): Promise<Readonly<Record<MetricsService, number>> | undefined> {
  const plan = planMetricsPorts(process.env["METRICS_PORT"]);
  if (!plan.ok) {
    process.stderr.write(`${plan.error}\n`);
    process.exit(1);
  }
  if (!plan.ports) return undefined;
  const host = process.env["METRICS_HOST"] || "127.0.0.1";
  for (const service of metricsServices) {
    const port = plan.ports[service];
    if (port !== 0 && !(await portIsFree(port, host))) {
      process.stderr.write(`METRICS_PORT: ${host}:${port}, the ${service}'s metrics port, is in use; choose another METRICS_PORT (npm start uses it and the next one)\n`);
      process.exit(1);
    }
  }
  const given = metricsServices.map((service) => `${service} ${plan.ports?.[service] === 0 ? "a free port (logged)" : `http://${host}:${plan.ports?.[service]}/metrics`}`);
  print("metrics", `each service its own METRICS_PORT: ${given.join(", ")}`);
  return plan.ports;
}

/** Passwords set in the environment (`NATS_GATEWAY_PASSWORD`, …) win over generated ones. */
function passwordsFromEnv(): Partial<NatsPasswords> {
  return Object.fromEntries(natsUsers.flatMap((user) => (process.env[passwordVariable(user)] ? [[user, process.env[passwordVariable(user)]]] : [])));
}

/**
 * The server, and how each service logs in. A local server gets fresh passwords every start (nothing
 * depends on them between runs). An external NATS_URL cannot be given our config: services then use the
 * per-service password variables if they are set, else whatever NATS_USER / NATS_PASSWORD say.
 */
async function nats(): Promise<{ url: string; server?: LocalNats; credentials: (service: NatsServiceUser) => Record<string, string> }> {
  const given = process.env["NATS_URL"];
  if (given) {
    const known = passwordsFromEnv();
    return {
      url: given,
      credentials: (service): Record<string, string> => {
        const password = known[service];
        return password ? { NATS_USER: service, NATS_PASSWORD: password } : {};
      },
    };
  }
  if (!findNatsServerBinary()) {
    process.stderr.write(`${natsServerMissingHelp}\n`);
    process.exit(1);
  }
  const passwords: NatsPasswords = { ...generatePasswords(), ...passwordsFromEnv() };
  const port = (await portIsFree(4222)) ? 4222 : -1;
  const server = await startLocalNats({ storeDir: `${repoRoot}data/nats`, port, configFile: natsConfigFile, env: serverPasswordEnv(passwords) });
  print("nats", `nats-server with JetStream at ${server.url} (data in ./data/nats; users and permissions from deploy/nats/nats-server.conf)`);
  return { url: server.url, server, credentials: (service) => serviceCredentialsEnv(service, passwords) };
}

const servicePorts = await metricsPorts();
const { url, server, credentials } = await nats();
const children: ChildProcess[] = [];
/** Each child's end: settled once it has exited and its stdout and stderr are read to the end. */
const closed = new Map<ChildProcess, Promise<void>>();
let stopping = false;
let stoppingSince = 0;

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/**
 * Stops every service with SIGTERM and waits for each to drain (each holds its own deadline) and for its last
 * lines, then the NATS server. A child's `exit` can come before its pipes are read to the end; `close` comes after.
 */
async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  stoppingSince = Date.now();
  if (children.some(running)) print("launcher", "stopping: the services finish what they are doing (Ctrl-C again stops them at once)");
  for (const child of children) if (running(child)) child.kill("SIGTERM");
  await Promise.all([...closed.values()]);
  await server?.stop();
  process.exit(exitCode);
}

// One Ctrl-C reaches this process more than once: from the terminal, and passed on by npm and tsx within
// milliseconds. Only a signal well after the first is someone asking again.
const repeatAfterMs = 1_000;

/** SIGINT or SIGTERM: stop; asked again while stopping, kill what is left at once. */
function onSignal(): void {
  if (!stopping) {
    void stopAll(0);
    return;
  }
  if (Date.now() - stoppingSince < repeatAfterMs) return;
  print("launcher", "stopping at once");
  for (const child of children) if (running(child)) child.kill("SIGKILL");
  server?.process.kill("SIGKILL");
  process.exit(1);
}

for (const name of services) {
  const child = spawn(process.execPath, [`services/${name}/dist/main.js`], {
    cwd: repoRoot,
    // each service gets its own NATS password, only the secrets it uses and its own metrics port (scripts/lib/service-env.ts)
    env: { ...serviceEnvironment(name, process.env, servicePorts), NATS_URL: url, ...credentials(name) },
    // the IPC channel is the service's lifeline: it closes when this process dies, and the service then stops
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.push(child);
  closed.set(child, new Promise((resolve) => child.once("close", () => resolve())));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on("line", (line) => {
      print(name, formatLogLine(line));
      if (name === "gateway" && line.includes("gateway listening")) {
        const listening = JSON.parse(line) as { url?: string };
        print("gateway", `Agent Orchestrator is running: ${formatLogLine(listening.url ?? "")} (Ctrl-C stops it)`);
      }
    });
  }
  child.once("exit", (code) => {
    if (stopping) return;
    print(name, `exited with code ${code}; stopping the others`);
    void stopAll(code === 0 ? 1 : (code ?? 1));
  });
}

process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

// the launcher's own parent (npm, or a shell) gone: nobody is left to stop the services, so stop them now
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && !stopping) {
    print("launcher", "the process that started npm start is gone; stopping");
    void stopAll(0);
  }
}, 1000).unref();
