/**
 * `npm start` as a user runs it (package.json's start script through `sh -c` as npm runs it, then node with tsx
 * as its loader and scripts/start.ts; the build step left out, the tests run on the built code), on a private NATS server:
 * - docs/security.md case 146: with METRICS_PORT set, each service that serves metrics gets its own port (the
 *   orchestrator METRICS_PORT, the tool-runner the next one) and both answer, instead of the second failing
 *   to bind and stopping the system;
 * - case 143: SIGTERM as npm sends it ends every service within its drain time (npm signals its shell,
 *   which must hand the signal on: the start script `exec`s node);
 * - case 144: the launcher SIGKILLed, its services see their IPC lifeline close and stop instead of living on.
 * Linux only: processes are found through /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsUsers, passwordVariable } from "@agent-orchestrator/testing/nats-users";
import { startTestNats, testNatsPasswords, type TestNats } from "@agent-orchestrator/testing/nats-harness";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";
import { freePortPair } from "@agent-orchestrator/testing/free-port";

const serviceNames = ["registry", "tool-runner", "orchestrator", "gateway"] as const;
/** each service's own deadline under this environment: 10 s, the orchestrator's TURN_TIMEOUT_MS + 5 s */
const drainMs = 10_000;
/** The start script as npm runs it, less its build step. */
const startScript = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start.replace(/^tsc -b && /, "");

let nats: TestNats;
let outputRoot: string;
const launched: Launch[] = [];
/** every service process seen, killed at the end whatever happened (one left orphaned is the failure tested) */
const seenServices = new Set<number>();

interface Launch {
  child: ChildProcess;
  lines: string[];
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Starts `command` in the repository with the launcher's environment and collects what it prints. */
function launch(command: string, args: string[], extraEnv: Record<string, string> = {}): Launch {
  const passwords = Object.fromEntries(natsUsers.map((user) => [passwordVariable(user), testNatsPasswords[user]]));
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: {
      // as npm runs scripts: the project's own binaries first
      PATH: `${join(repoRoot, "node_modules/.bin")}:${process.env["PATH"] ?? ""}`,
      HOME: process.env["HOME"] ?? tmpdir(),
      NATS_URL: nats.url,
      ...passwords,
      PORT: "0",
      BMAD_ROOT: repoRoot,
      OUTPUT_ROOT: outputRoot,
      TURN_TIMEOUT_MS: String(drainMs - 5_000),
      LOG_LEVEL: "info",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream! }).on("line", (line) => lines.push(line));
  const started: Launch = {
    child,
    lines,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const line of lines) {
          const match = line.match(pattern);
          if (match) return match;
        }
        if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in ${timeoutMs} ms:\n${lines.slice(-20).join("\n")}`);
        await sleep(100);
      }
    },
  };
  launched.push(started);
  return started;
}

/** Every process below `root`, with its command line, read from /proc. */
function descendants(root: number): Array<{ pid: number; command: string }> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // the command name is in parentheses and may hold spaces: the parent pid is the 2nd field after it
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), parent);
    } catch {
      // gone meanwhile
    }
  }
  const found: Array<{ pid: number; command: string }> = [];
  const visit = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      found.push({ pid: child, command: commandLine(child) });
      visit(child);
    }
  };
  visit(root);
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

const alive = (pid: number) => {
  try {
    // a zombie is dead: it only waits for its parent to read its status
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** The four service processes below `root`, by name. */
function servicePids(root: number): Record<(typeof serviceNames)[number], number> {
  const processes = descendants(root);
  return Object.fromEntries(
    serviceNames.map((name) => {
      const found = processes.find((process) => process.command.includes(`services/${name}/dist/main.js`));
      if (!found) throw new Error(`no ${name} process below ${root}: ${JSON.stringify(processes)}`);
      seenServices.add(found.pid);
      return [name, found.pid];
    }),
  ) as Record<(typeof serviceNames)[number], number>;
}

/** Waits until none of `pids` is alive; resolves with those still alive after `timeoutMs`. */
async function whenGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && pids.some(alive)) await sleep(100);
  return pids.filter(alive);
}

function environmentOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

beforeAll(async () => {
  nats = await startTestNats();
  outputRoot = await mkdtemp(join(tmpdir(), "ao-launcher-"));
}, 60_000);

afterAll(async () => {
  const pids = new Set(seenServices);
  for (const { child } of launched) for (const { pid } of child.pid === undefined ? [] : descendants(child.pid)) pids.add(pid);
  for (const pid of pids) {
    try {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const { child } of launched) child.kill("SIGKILL");
  await nats?.stop();
  await rm(outputRoot, { recursive: true, force: true });
});

/** Starts the start script as npm runs it and waits until the system serves; resolves with the shell npm would signal. */
async function npmStart(extraEnv: Record<string, string> = {}): Promise<{ npm: Launch; services: Record<(typeof serviceNames)[number], number> }> {
  expect(startScript).toMatch(/scripts\/start\.ts/);
  const npm = launch("sh", ["-c", startScript], extraEnv);
  await npm.waitFor(/Agent Orchestrator is running/, 60_000);
  return { npm, services: servicePids(npm.child.pid as number) };
}

describe.skipIf(process.platform !== "linux")("npm start", () => {
  it("gives each service that serves metrics its own port: the orchestrator METRICS_PORT, the tool-runner the next (docs/security.md case 146)", async () => {
    const metricsPort = await freePortPair();
    const { npm, services } = await npmStart({ METRICS_PORT: String(metricsPort) });
    await npm.waitFor(new RegExp(`tool-runner .*metrics listening.*:${metricsPort + 1}/metrics`), 15_000);
    await npm.waitFor(new RegExp(`orchestrator .*metrics listening.*:${metricsPort}/metrics`), 15_000);
    const given = Object.fromEntries(serviceNames.map((name) => [name, environmentOf(services[name])["METRICS_PORT"]]));
    expect(given).toEqual({ registry: undefined, "tool-runner": String(metricsPort + 1), orchestrator: String(metricsPort), gateway: undefined });
    const orchestrator = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const toolRunner = await (await fetch(`http://127.0.0.1:${metricsPort + 1}/metrics`)).text();
    expect(orchestrator).toContain("ao_turns_total");
    expect(toolRunner).toContain("ao_tool_executions_total");
    expect(npm.lines.some((line) => line.includes("each service its own METRICS_PORT"))).toBe(true);
    npm.child.kill("SIGTERM");
    expect(await whenGone(Object.values(services), drainMs + 2_000)).toEqual([]);
  }, 90_000);

  it("refuses at once a METRICS_PORT whose next port is taken, before starting anything (docs/security.md case 146)", async () => {
    const metricsPort = await freePortPair();
    const taken = createServer().listen(metricsPort + 1, "127.0.0.1");
    try {
      const npm = launch("sh", ["-c", startScript], { METRICS_PORT: String(metricsPort) });
      const [code] = (await once(npm.child, "exit")) as [number | null];
      expect(code).toBe(1);
      expect(npm.lines.join("\n")).toContain(`127.0.0.1:${metricsPort + 1}, the tool-runner's metrics port, is in use`);
      expect(npm.lines.some((line) => line.includes("services/"))).toBe(false);
    } finally {
      taken.close();
    }
  }, 60_000);

  it("ends every service within its drain time when npm passes on a SIGTERM (docs/security.md case 143)", async () => {
    const { npm, services } = await npmStart();
    // the gateway can be up before the others on a loaded machine: a service stopped while it starts has no drain to show
    for (const ready of [/^registry .*registry serving/, /^tool-runner .*tool-runner serving/, /^orchestrator .*orchestrator ready/]) await npm.waitFor(ready, 60_000);
    const everything = descendants(npm.child.pid as number).map((process) => process.pid);
    // npm hands a SIGTERM to the shell it runs the script in; one stop often arrives twice within milliseconds
    // (a terminal's Ctrl-C reaches npm and the launcher alike, and each passes it on): still one graceful stop
    npm.child.kill("SIGTERM");
    setTimeout(() => npm.child.kill("SIGTERM"), 20);
    expect(await whenGone(Object.values(services), drainMs + 2_000)).toEqual([]);
    // a service's last lines pass through the launcher's pipes after it has gone: they are waited for, not assumed
    for (const name of serviceNames) await npm.waitFor(new RegExp(`^${name} .*info  stopped`), 10_000);
    expect(npm.lines.some((line) => line.includes("stopping at once"))).toBe(false);
    // the launcher too: nothing the script started is left
    expect(await whenGone(everything, 5_000)).toEqual([]);
  }, 90_000);

  it("leaves no service running when the launcher is killed outright: each sees its lifeline close and stops (docs/security.md case 144)", async () => {
    // the launcher itself, no npm in between: SIGKILL gives it no chance to stop anything
    const launcher = launch(process.execPath, ["--import", "tsx", "scripts/start.ts"]);
    await launcher.waitFor(/Agent Orchestrator is running/, 60_000);
    const services = servicePids(launcher.child.pid as number);
    launcher.child.kill("SIGKILL");
    const left = await whenGone(Object.values(services), drainMs + 2_000);
    const lingering = Object.entries(services).filter(([, pid]) => left.includes(pid)).map(([name]) => name);
    // what each printed before the launcher died tells whether it was still starting
    const lastLines = lingering.flatMap((name) => launcher.lines.filter((line) => line.startsWith(`${name} `)).slice(-5));
    expect(lingering, `services still running; their last lines:\n${lastLines.join("\n")}`).toEqual([]);
  }, 90_000);
});
