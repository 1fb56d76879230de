/**
 * `npm run eval` tested both ways on the scripted model (docs/eval.md "How the eval itself is tested"): a
 * model that follows BMAD as the checks expect passes every check, and a model that breaks one rule fails exactly the checks graded by that rule
 * and passes all the others. Each eval starts the whole system itself, as the command does. The sample bundle of
 * this repository (bmad/custom/bundles/idea-studio: an XML agent whose workflow is a workflow.yaml) carries the
 * misbehaving models; BMAD 6.12 (skills, BMAD's memlog.py through run_script), 6.2 (XML agents whose config
 * names no language until the eval adds it) and 4.44.3 (a task and template loaded as dependencies) show the
 * journeys of every release kind, from the install cache the release tests fill.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvalOptions, parseEvalArguments, type EvalOptionsInput } from "./eval-options.js";
import type { EvalReport } from "./eval-report.js";
import { runEval } from "./run-eval.js";
import { bmadResponder, type Misbehaviour } from "@agent-orchestrator/testing/eval-responder";
import { startHttpModel, type Responder } from "@agent-orchestrator/testing/http-model";
import { repoRoot } from "@agent-orchestrator/testing/service-processes";

const evalTimeoutMs = 180_000;

async function evaluate(responder: Responder, options: Omit<EvalOptionsInput, "baseUrl" | "model">, judge?: Responder): Promise<{ report: EvalReport; table: string }> {
  const model = await startHttpModel({ responder });
  const judgeModel = judge ? await startHttpModel({ responder: judge }) : undefined;
  try {
    let table = "";
    const report = await runEval(
      EvalOptions.parse({ baseUrl: model.url, model: "scripted", ...options, ...(judgeModel ? { judgeModel: "scripted-judge", judgeBaseUrl: judgeModel.url } : {}) }),
      { progress: () => {}, table: (text) => (table = text) },
    );
    return { report, table };
  } finally {
    await model.close();
    await judgeModel?.close();
  }
}

const failedChecks = (report: EvalReport) => [...new Set(report.results.filter((result) => result.outcome !== "pass").map((result) => result.check))].sort();

describe("the eval of a 6.x agent file with a workflow.yaml (the repository's sample bundle)", () => {
  let out: string;
  let wellBehaved: { report: EvalReport; table: string };

  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), "ao-eval-test-"));
    wellBehaved = await evaluate(bmadResponder(), { bmadRoot: repoRoot, repeat: 2, out });
  }, evalTimeoutMs);

  afterAll(() => rm(out, { recursive: true, force: true }));

  it("passes every check, over every repeat, for a model that follows BMAD", () => {
    const { report } = wellBehaved;
    expect(report.results.filter((result) => result.outcome !== "pass")).toEqual([]);
    expect(report.summary).toMatchObject({ failed: 0, errors: 0, pass_rate: 1 });
    expect(report.summary.total).toBe(report.results.length);
    expect(report.agents).toEqual([{ id: "idea-coach", kind: "6.x agent file", journeys: ["activation", "workflow"] }]);
    expect(report.checks.map((check) => check.check).sort()).toEqual(
      [
        "activation.config",
        "greeting.agent_name",
        "greeting.language",
        "greeting.menu",
        "greeting.user_name",
        "menu.items",
        "output.in_folder",
        "output.saved",
        "step.no_early_write",
        "step.question",
        "tools.in_view",
        "tools.known",
        "turn.done",
        "workflow.loaded",
      ].sort(),
    );
    expect(report.pass_hat_k).toEqual({ k: 2, value: 1, by_k: { "1": 1, "2": 1 } });
    expect(new Set(report.results.map((result) => result.run))).toEqual(new Set([1, 2]));
  });

  it("records what each step cost and keeps its events as a transcript", async () => {
    const { report } = wellBehaved;
    for (const step of report.steps) expect(step.iterations).toBeGreaterThan(0);
    for (const step of report.steps) expect(step.usage.total_tokens).toBeGreaterThan(0);
    const transcript = JSON.parse(await readFile(join(out, "transcripts/run-1/idea-coach-workflow.json"), "utf8")) as { steps: Array<{ events: Array<{ type: string; name?: string }> }> };
    expect(transcript.steps[0]?.events.filter((event) => event.type === "tool_call").map((event) => event.name)).toEqual(["preload_workflow"]);
  });

  it("writes report.json and report.md, and prints the table", async () => {
    const written = JSON.parse(await readFile(join(out, "report.json"), "utf8")) as EvalReport;
    expect(written.summary).toEqual(wellBehaved.report.summary);
    expect(written).toMatchObject({ model: "scripted", release: repoRoot, config: { user_name: "Ada", communication_language: "French", output_folder: "_bmad-output" } });
    expect(written.base_url_host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await readFile(join(out, "report.md"), "utf8")).toContain("**Steps that need tools: 4 of 4 passed (100%).**");
    expect(wellBehaved.table).toContain("pass^2 100%");
    expect(wellBehaved.table).toMatch(/workflow\.loaded\s+2\s+2\s+0\s+0\s+100%/);
  });

  const misbehaving: ReadonlyArray<{ misbehaviour: Misbehaviour; fails: string[] }> = [
    { misbehaviour: "skip-config", fails: ["greeting.language", "greeting.user_name"] },
    { misbehaviour: "skip-workflow", fails: ["workflow.loaded"] },
    { misbehaviour: "wrong-folder", fails: ["output.in_folder", "output.saved"] },
    { misbehaviour: "invent-tool", fails: ["tools.known"] },
    { misbehaviour: "skip-question", fails: ["step.no_early_write", "step.question"] },
    { misbehaviour: "read-outside", fails: ["tools.in_view"] },
  ];

  it.each(misbehaving)("fails exactly $fails for a model that does $misbehaviour", async ({ misbehaviour, fails }) => {
    const { report } = await evaluate(bmadResponder(misbehaviour), { bmadRoot: repoRoot });
    expect(failedChecks(report)).toEqual(fails);
    expect(report.results.filter((result) => result.outcome === "error")).toEqual([]);
    expect(report.summary.passed).toBe(report.summary.total - report.summary.failed);
    expect(report.pass_hat_k.value).toBeLessThan(1);
  }, evalTimeoutMs);

  it("leads its report with pass^k per journey and the steps that need tools: a model that never calls a tool passes most checks but none of those steps", async () => {
    const { report, table } = await evaluate(bmadResponder("no-tools"), { bmadRoot: repoRoot });
    expect(failedChecks(report)).toEqual(["output.saved", "workflow.loaded"]);
    expect(report.summary).toMatchObject({ total: 23, passed: 21, pass_rate: 0.913 });
    expect(report.tool_steps).toMatchObject({ total: 2, passed: 0, pass_rate: 0 });
    expect(report.pass_hat_k.value).toBe(0.5);
    expect(table.split("\n")[1]).toMatch(/^pass\^1 50% of journeys; steps that need tools 0\/2 passed \(0%\); checks \d+\/\d+ passed/);
  }, evalTimeoutMs);

  it("keeps a judge's scores apart from the rules' summary, marked as judged", async () => {
    const judge: Responder = (request) => {
      const persona = String(request.messages[1]?.content ?? "").includes("THE USER SAID: Hello") ? 2 : 5;
      return { text: `Verdict: {"persona": ${persona}, "intent": 4, "reason": "scripted"}` };
    };
    const { report, table } = await evaluate(bmadResponder(), { bmadRoot: repoRoot }, judge);
    expect(report.summary).toMatchObject({ failed: 0, errors: 0 });
    expect(report.results.every((result) => !result.check.startsWith("judge."))).toBe(true);
    expect(report.judged?.model).toBe("scripted-judge");
    expect(report.judged?.results.every((result) => result.judged)).toBe(true);
    // four steps, two scores each; the greeting's persona scored 2 fails
    expect(report.judged?.summary).toEqual({ total: 8, passed: 7, failed: 1, errors: 0 });
    expect(report.judged?.results.find((result) => result.outcome === "fail")).toMatchObject({ step: "greeting", check: "judge.persona", score: 2 });
    expect(table).toContain("judged by scripted-judge (not in the summary)");
  }, evalTimeoutMs);
});

describe.each([
  { release: "6.12.0", kind: "skills", agents: ["analyst", "pm"], journeys: ["activation", "workflow", "script"] },
  { release: "6.2.0", kind: "6.x agent file", agents: ["analyst"], journeys: ["activation", "workflow"] },
  { release: "4.44.3", kind: "4.x", agents: ["analyst"], journeys: ["activation", "workflow"] },
])("the eval of BMAD $release ($kind)", ({ release, kind, agents, journeys }) => {
  it("passes every check for a model that follows BMAD", async () => {
    const { report } = await evaluate(bmadResponder(), { release, agents });
    expect(report.results.filter((result) => result.outcome !== "pass")).toEqual([]);
    expect(report.agents.every((agent) => agent.kind === kind)).toBe(true);
    expect([...new Set(report.agents.flatMap((agent) => agent.journeys))].sort()).toEqual([...journeys].sort());
    if (kind === "4.x") expect(report.checks.map((check) => check.check)).toContain("dependency.loaded");
    if (kind === "skills") expect(report.checks.map((check) => check.check)).toContain("script.ran");
  }, evalTimeoutMs);
});

describe("the eval's compaction journey (docs/eval.md \"Journeys\")", () => {
  const options = { release: "6.12.0", agents: ["analyst"], compactionWindow: 16_000 };

  it("passes a model that goes on where it was after the chat was compacted mid-workflow", async () => {
    const { report } = await evaluate(bmadResponder(), options);
    expect(report.results.filter((result) => result.outcome !== "pass")).toEqual([]);
    expect(report.agents).toEqual([{ id: "bmm/analyst", kind: "skills", journeys: ["activation", "workflow", "script", "compaction"] }]);
    const resumed = report.results.filter((result) => result.journey === "compaction" && result.step === "resume").map((result) => result.check);
    expect(resumed).toEqual(expect.arrayContaining(["compaction.done", "resume.no_restart", "resume.same_document"]));
  }, 2 * evalTimeoutMs);

  it("fails exactly the resume checks for a model that starts the workflow again after the compaction", async () => {
    const { report } = await evaluate(bmadResponder("restart-after-compaction"), options);
    expect(failedChecks(report)).toEqual(["resume.no_restart", "resume.same_document"]);
  }, 2 * evalTimeoutMs);
});

it("refuses a command line it cannot run, in one line, with exit code 2", async () => {
  expect(parseEvalArguments(["--model", "m"])).toMatchObject({ ok: false, error: expect.stringContaining("--base-url") as unknown });
  expect(parseEvalArguments(["--base-url", "http://x/v1", "--model", "m", "--bmad-root", "a", "--release", "6.12.0"])).toMatchObject({ ok: false, error: "give --bmad-root or --release, not both" });
  expect(parseEvalArguments(["--base-url", "http://x/v1", "--model", "m", "--repeat", "3", "--agents", "analyst, pm"])).toMatchObject({ ok: true, options: { repeat: 3, agents: ["analyst", "pm"] } });
  const run = spawnSync(process.execPath, ["--import", "tsx", join(repoRoot, "scripts/eval/main.ts"), "--model", "m", "--repeat", "0"], { cwd: repoRoot, encoding: "utf8" });
  expect(run.status).toBe(2);
  expect(run.stderr.split("\n")[0]).toMatch(/^--base-url: /);
  expect(run.stderr).toContain("usage: npm run eval -- --base-url URL --model NAME");
});
