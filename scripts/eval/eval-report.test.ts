import { describe, expect, it } from "vitest";
import type { CheckResult } from "./eval-checks.js";
import { buildReport, reportMarkdown, reportTable, type GradedStep, type ReportContext } from "./eval-report.js";

const context: ReportContext = {
  model: "m",
  baseUrl: "https://api.example.com/v1",
  release: "bmad-method@6.12.0 (claude-code)",
  date: "2026-11-25T00:00:00.000Z",
  config: { user_name: "Ada", communication_language: "French", output_folder: "_bmad-output" },
  repeat: 3,
  agents: [{ id: "bmm/analyst", kind: "skills", journeys: ["activation", "workflow"] }],
};

function step(run: number, journey: string, outcomes: CheckResult["outcome"][]): GradedStep {
  return {
    run,
    agent: "bmm/analyst",
    journey,
    step: "s",
    message: "Hello",
    iterations: 1,
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    transcript: "",
    results: outcomes.map((outcome, index) => ({ check: index === 0 ? "turn.done" : "tools.known", outcome, reason: "" })),
    judged: [],
  };
}

describe("the eval report", () => {
  // activation passes in all three runs; workflow in runs 1 and 3 (run 2 has a failed check)
  const steps = [1, 2, 3].flatMap((run) => [step(run, "activation", ["pass", "pass"]), step(run, "workflow", ["pass", run === 2 ? "fail" : "pass"])]);
  const report = buildReport(context, steps);

  it("counts every graded check of every run in the summary", () => {
    expect(report.summary).toEqual({ total: 12, passed: 11, failed: 1, errors: 0, pass_rate: 0.917 });
    expect(report.totals).toEqual({ model_calls: 6, prompt_tokens: 60, completion_tokens: 12, total_tokens: 72 });
  });

  it("gives each check's pass rate over the repeats", () => {
    expect(report.checks).toEqual([
      { check: "turn.done", graded: 6, passed: 6, failed: 0, errors: 0, pass_rate: 1 },
      { check: "tools.known", graded: 6, passed: 5, failed: 1, errors: 0, pass_rate: 0.833 },
    ]);
  });

  it("estimates pass^k as τ-bench does: C(c,k)/C(n,k) averaged over journeys; pass^n is the share passing every run", () => {
    expect(report.journeys).toEqual([
      { agent: "bmm/analyst", journey: "activation", runs: 3, passed_runs: 3, passed_every_run: true, pass_hat_k: { "1": 1, "2": 1, "3": 1 } },
      { agent: "bmm/analyst", journey: "workflow", runs: 3, passed_runs: 2, passed_every_run: false, pass_hat_k: { "1": 0.667, "2": 0.333, "3": 0 } },
    ]);
    // workflow: pass^1 2/3, pass^2 C(2,2)/C(3,2) = 1/3, pass^3 0
    expect(report.pass_hat_k).toEqual({ k: 3, value: 0.5, by_k: { "1": 0.833, "2": 0.667, "3": 0.5 } });
  });

  it("counts an error as not passed, and keeps judged scores out of the summary", () => {
    const judged = { ...step(1, "activation", ["error"]), judged: [{ check: "judge.persona" as const, score: 2, outcome: "fail" as const, reason: "generic" }] };
    const withJudge = buildReport({ ...context, repeat: 1, judgeModel: "judge" }, [judged]);
    expect(withJudge.summary).toEqual({ total: 1, passed: 0, failed: 0, errors: 1, pass_rate: 0 });
    expect(withJudge.pass_hat_k.value).toBe(0);
    expect(withJudge.judged).toMatchObject({ model: "judge", summary: { total: 1, passed: 0, failed: 1, errors: 0 }, mean_scores: { persona: 2, intent: null } });
    expect(withJudge.judged?.results[0]).toMatchObject({ judged: true, check: "judge.persona", score: 2 });
    expect(reportTable(withJudge)).toContain("judged by judge (not in the summary)");
    expect(reportMarkdown(withJudge)).toContain("## Judged (by judge; not part of the summary above)");
  });

  it("leads with pass^k per journey and the steps that need tools, not the share of checks a model passes without calling a tool", () => {
    // a model that never calls a tool: it greets and shows the menu, asks the step's question, says it saved
    const graded = (journey: string, name: string, checks: Array<[CheckResult["check"], CheckResult["outcome"]]>): GradedStep => ({
      ...step(1, journey, []),
      step: name,
      results: checks.map(([check, outcome]) => ({ check, outcome, reason: "" })),
    });
    const generic: Array<[CheckResult["check"], CheckResult["outcome"]]> = [["turn.done", "pass"], ["tools.known", "pass"], ["tools.in_view", "pass"]];
    const noTools = buildReport({ ...context, repeat: 1 }, [
      graded("activation", "greeting", [...generic, ["greeting.agent_name", "pass"], ["greeting.menu", "pass"]]),
      graded("activation", "menu", [...generic, ["menu.items", "pass"]]),
      graded("workflow", "pick", [...generic, ["workflow.loaded", "fail"], ["step.question", "pass"], ["step.no_early_write", "pass"]]),
      graded("workflow", "answer", [...generic, ["output.saved", "fail"], ["output.in_folder", "pass"]]),
    ]);
    expect(noTools.summary.pass_rate).toBe(0.9);
    expect(noTools.tool_steps).toEqual({
      total: 2,
      passed: 0,
      pass_rate: 0,
      steps: [
        { agent: "bmm/analyst", journey: "workflow", step: "pick", needs: ["workflow.loaded"], runs: 1, passed_runs: 0 },
        { agent: "bmm/analyst", journey: "workflow", step: "answer", needs: ["output.saved"], runs: 1, passed_runs: 0 },
      ],
    });
    const lines = reportTable(noTools).split("\n");
    expect(lines[1]).toBe("pass^1 50% of journeys; steps that need tools 0/2 passed (0%); checks 18/20 passed (90%), 2 failed, 0 errors");
    expect(lines.findIndex((line) => line.startsWith("steps that need tools: 0/2"))).toBeLessThan(lines.findIndex((line) => line.startsWith("every graded check")));
    expect(lines).toContainEqual(expect.stringMatching(/^bmm\/analyst\s+workflow\s+0\/1\s+0%$/));
    const markdown = reportMarkdown(noTools);
    expect(markdown.indexOf("**pass^1: 50% of journeys**")).toBeLessThan(markdown.indexOf("Every graded check: 18 of 20"));
    expect(markdown).toContain("**Steps that need tools: 0 of 2 passed (0%).**");
    expect(markdown).toContain("| bmm/analyst | workflow | answer | output.saved | 0/1 |");
  });

  it("names the endpoint by its host only, never its path or a key in it", () => {
    expect(report.base_url_host).toBe("api.example.com");
    expect(reportTable(report)).toMatch(/tools\.known\s+6\s+5\s+1\s+0\s+83%/);
    expect(reportMarkdown(report)).toContain("| 2 | bmm/analyst | workflow | s | tools.known | fail |");
  });
});
