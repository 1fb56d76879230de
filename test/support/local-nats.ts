/**
 * Starts a private nats-server process (JetStream on, store in a folder of our own) for `npm start` and
 * the tests. It listens on 127.0.0.1 only; port -1 lets the server pick a free port, which it writes to
 * a ports file we wait for. Command-line flags win over the config file, so the production config
 * (deploy/nats/nats-server.conf) runs here unchanged.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

export interface LocalNats {
  url: string;
  /** the port it listens on, so a restart can come back on the same one */
  port: number;
  process: ChildProcess;
  /** the server's log lines (the latest 20,000): permission violations show up here */
  logLines: string[];
  /** the HTTP monitoring endpoint, when `args` asked for one (`-m -1`) */
  monitoringUrl?: string;
  stop(): Promise<void>;
}

export interface LocalNatsOptions {
  /** JetStream store; kept between runs when it is a fixed folder */
  storeDir: string;
  /** fixed port, or -1 (default) for a free one */
  port?: number;
  /** an optional nats-server config file (users and permissions) */
  configFile?: string;
  /** extra environment for the server, e.g. the password variables the config reads */
  env?: Record<string, string>;
  /** where the log lines go (a fresh array by default); pass the previous one to keep one log across a restart */
  logLines?: string[];
  binary?: string;
  readyTimeoutMs?: number;
  /** more command-line flags, e.g. a cluster member's route listener (`--cluster nats://127.0.0.1:6222`) */
  args?: string[];
}

const keptLogLines = 20_000;

/** The nats-server binary from NATS_SERVER_BIN, PATH or /usr/sbin, if there is one. */
export function findNatsServerBinary(): string | undefined {
  const fromEnv = process.env["NATS_SERVER_BIN"];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const folders = (process.env["PATH"] ?? "").split(delimiter).concat(["/usr/sbin", "/usr/local/sbin", "/usr/local/bin"]);
  for (const folder of folders) {
    const candidate = join(folder, "nats-server");
    if (folder && existsSync(candidate)) return candidate;
  }
  return undefined;
}

export const natsServerMissingHelp =
  "No NATS server found: set NATS_URL, or install nats-server (Debian/Ubuntu: `apt-get install nats-server`, macOS: `brew install nats-server`), or run `docker compose up`.";

export async function startLocalNats(options: LocalNatsOptions): Promise<LocalNats> {
  const binary = options.binary ?? findNatsServerBinary();
  if (!binary) throw new Error(natsServerMissingHelp);
  const portsDir = join(options.storeDir, "ports");
  await mkdir(portsDir, { recursive: true });
  const args = ["-a", "127.0.0.1", "-p", String(options.port ?? -1), "-js", "-sd", join(options.storeDir, "jetstream"), "--ports_file_dir", portsDir];
  if (options.configFile) args.unshift("-c", options.configFile);
  args.push(...(options.args ?? []));
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...options.env } });
  const logLines = options.logLines ?? [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    logLines.push(line);
    if (logLines.length > keptLogLines) logLines.splice(0, logLines.length - keptLogLines);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
  const portsFile = `nats-server_${child.pid}.ports`;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode}: ${logLines.slice(-5).join("\n")}`);
    if ((await readdir(portsDir)).includes(portsFile)) {
      // the server writes the file after creating it: one read may see it empty or half written
      const ports = readPorts(await readFile(join(portsDir, portsFile), "utf8"));
      const url = ports.nats?.[0];
      const monitoringUrl = ports.monitoring?.[0];
      if (url) {
        return {
          url,
          ...(monitoringUrl ? { monitoringUrl } : {}),
          port: Number(new URL(url).port),
          process: child,
          logLines,
          stop: async () => {
            if (child.exitCode === null) child.kill("SIGTERM");
            await exited;
          },
        };
      }
    }
    await sleep(20);
  }
  child.kill("SIGKILL");
  throw new Error(`nats-server did not become ready: ${logLines.slice(-5).join("\n")}`);
}

/** The ports file's listeners; none yet while the file is still being written. */
function readPorts(text: string): { nats?: string[]; monitoring?: string[] } {
  try {
    return JSON.parse(text) as { nats?: string[]; monitoring?: string[] };
  } catch {
    return {};
  }
}
