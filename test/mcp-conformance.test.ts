/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its `server` scenarios) against /mcp:
 * the scenarios that apply to a server offering its own prompts, resources and tools pass. The others need the
 * suite's fixture prompts, resources and tools, sampling, elicitation or logging, which this server does not
 * offer (docs/openai-api.md "Conformance" says which and why). The suite needs Node.js 22 or later: it runs on
 * the Node.js running the tests when it is one, else on the Node.js 24 CI uses (test/support/node-22.ts).
 * Real processes, a private nats-server, the scripted model (never called here).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node22OrLater } from "@agent-orchestrator/testing/node-22";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const run = promisify(execFile);
/** the suite's CLI, as its package's `bin` names it */
const cli = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");

/** The server scenarios that apply to this server, prompts and resources first. */
const applicable = ["prompts-list", "resources-list", "server-initialize", "ping", "tools-list", "dns-rebinding-protection"] as const;

let system: TestSystem;
let node: string;
let results: string;

beforeAll(async () => {
  [system, node, results] = await Promise.all([
    // without AUTH_TOKENS: the suite's client sends no token
    startTestSystem({ responder: () => ({ text: "unused" }), env: { HOST: "127.0.0.1" } }),
    node22OrLater(),
    mkdtemp(join(tmpdir(), "mcp-conformance-")),
  ]);
  // a file in the local user's project, so resources-list checks a listing that is not empty
  const upload = await fetch(`${system.url}/api/projects/default/files/docs/prd.md`, { method: "PUT", body: "# PRD\n" });
  expect(upload.status).toBe(201);
}, 600_000);

afterAll(async () => {
  await system?.stop();
  if (results) await rm(results, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** What a listing scenario must have found, so its check is not passed by an empty list. */
const listed: Partial<Record<(typeof applicable)[number], string>> = { "prompts-list": "promptCount", "resources-list": "resourceCount" };

/** Runs one scenario and returns its checks, as the suite saves them. */
async function scenario(name: string): Promise<{ exitCode: number; checks: Check[] }> {
  const output = join(results, name);
  const exitCode = await run(node, [cli, "server", "--url", `${system.url}/mcp`, "--scenario", name, "--output-dir", output], { timeout: 120_000 }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? 1,
  );
  const [folder] = await readdir(output);
  const checks = JSON.parse(await readFile(join(output, folder ?? "", "checks.json"), "utf8")) as Check[];
  return { exitCode, checks };
}

describe("the MCP conformance suite against /mcp", () => {
  it.each(applicable)("passes %s", async (name) => {
    const { exitCode, checks } = await scenario(name);
    expect(checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING")).toEqual([]);
    expect(checks.some((check) => check.status === "SUCCESS")).toBe(true);
    expect(exitCode).toBe(0);
    const count = listed[name];
    if (count !== undefined) expect(checks.find((check) => check.id === name)?.details?.[count]).toBeGreaterThan(0);
  }, 150_000);
});
