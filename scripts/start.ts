/**
 * `npm start`: the whole system on one machine. Uses NATS_URL, or starts a local nats-server with
 * JetStream data under ./data/nats and the production permission config (deploy/nats/nats-server.conf);
 * then starts the four services as four processes, each connected as its own NATS user, prints the URL,
 * and stops everything on Ctrl-C.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { formatLogLine } from "./lib/console-line.js";
import { findNatsServerBinary, natsServerMissingHelp, startLocalNats, type LocalNats } from "./lib/local-nats.js";
import {
  generatePasswords,
  natsConfigFile,
  natsUsers,
  passwordVariable,
  serverPasswordEnv,
  serviceCredentialsEnv,
  type NatsPasswords,
  type NatsServiceUser,
} from "./lib/nats-users.js";
import { serviceEnvironment } from "./lib/service-env.js";

const repoRoot = fileURLToPath(new URL("../", import.meta.url));
const services = ["registry", "tool-runner", "orchestrator", "gateway"] as const;
const colours: Record<string, string> = { registry: "35", "tool-runner": "36", orchestrator: "33", gateway: "32", nats: "34" };

function print(source: string, text: string): void {
  const tag = process.stdout.isTTY ? `\x1b[${colours[source] ?? "0"}m${source.padEnd(12)}\x1b[0m` : source.padEnd(12);
  process.stdout.write(`${tag} ${text}\n`);
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
      .once("error", () => resolve(false))
      .once("listening", () => probe.close(() => resolve(true)))
      .listen(port, "127.0.0.1");
  });

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

const { url, server, credentials } = await nats();
const children: ChildProcess[] = [];
let stopping = false;

async function stopAll(exitCode: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      ),
    );
    await server?.stop();
  }
  process.exit(exitCode);
}

for (const name of services) {
  const child = spawn(process.execPath, [`services/${name}/dist/main.js`], {
    cwd: repoRoot,
    // each service gets its own NATS password and only the secrets it uses (scripts/lib/service-env.ts)
    env: { ...serviceEnvironment(name, process.env), NATS_URL: url, ...credentials(name) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
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

process.once("SIGINT", () => void stopAll(0));
process.once("SIGTERM", () => void stopAll(0));
