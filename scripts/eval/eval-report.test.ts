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
      { agent: "bmm/analyst", journey: "activation", runs: 3, passed_runs: 3, passed_every_run: true },
      { agent: "bmm/analyst", journey: "workflow", runs: 3, passed_runs: 2, passed_every_run: false },
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

  it("names the endpoint by its host only, never its path or a key in it", () => {
    expect(report.base_url_host).toBe("api.example.com");
    expect(reportTable(report)).toMatch(/tools\.known\s+6\s+5\s+1\s+0\s+83%/);
    expect(reportMarkdown(report)).toContain("| 2 | bmm/analyst | workflow | s | tools.known | fail |");
  });
});
