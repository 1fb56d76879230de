/**
 * The eval's report, made from the graded steps of every run: the summary over every graded check, the pass rate
 * of each check over the repeats, and pass^k (τ-bench's measure: the chance that a journey passes in all of k
 * runs, estimated from n repeats as C(c, k) / C(n, k) averaged over journeys, c being its passing runs; for k = n,
 * the share of journeys that passed in every run). The same data becomes the table, report.json and report.md.
 */
import type { CheckResult, Outcome } from "./eval-checks.js";
import type { JudgedResult } from "./eval-judge.js";

export interface GradedStep {
  run: number;
  agent: string;
  journey: string;
  step: string;
  message: string;
  iterations: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** the transcript file of the journey, relative to the out folder */
  transcript: string;
  results: CheckResult[];
  judged: JudgedResult[];
}

export interface ReportContext {
  model: string;
  baseUrl: string;
  release: string;
  date: string;
  config: { user_name: string; communication_language: string; output_folder: string };
  repeat: number;
  agents: Array<{ id: string; kind: string; journeys: string[] }>;
  judgeModel?: string;
}

interface Tally {
  total: number;
  passed: number;
  failed: number;
  errors: number;
}

const tally = (outcomes: readonly Outcome[]): Tally => ({
  total: outcomes.length,
  passed: outcomes.filter((outcome) => outcome === "pass").length,
  failed: outcomes.filter((outcome) => outcome === "fail").length,
  errors: outcomes.filter((outcome) => outcome === "error").length,
});

const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);

function choose(n: number, k: number): number {
  let result = 1;
  for (let index = 0; index < k; index++) result = (result * (n - index)) / (index + 1);
  return result;
}

export function buildReport(context: ReportContext, steps: readonly GradedStep[]) {
  const results = steps.flatMap((step) => step.results.map((result) => ({ run: step.run, agent: step.agent, journey: step.journey, step: step.step, ...result })));
  const overall = tally(results.map((result) => result.outcome));
  const checkNames = [...new Set(results.map((result) => result.check))];
  const checks = checkNames.map((check) => {
    const counted = tally(results.filter((result) => result.check === check).map((result) => result.outcome));
    return { check, graded: counted.total, passed: counted.passed, failed: counted.failed, errors: counted.errors, pass_rate: rate(counted.passed, counted.total) };
  });
  const journeyKeys = [...new Set(steps.map((step) => `${step.agent}\u0000${step.journey}`))];
  const journeys = journeyKeys.map((key) => {
    const [agent = "", journey = ""] = key.split("\u0000");
    const runs = [...new Set(steps.filter((step) => step.agent === agent && step.journey === journey).map((step) => step.run))];
    const passedRuns = runs.filter((run) =>
      results.filter((result) => result.agent === agent && result.journey === journey && result.run === run).every((result) => result.outcome === "pass"),
    ).length;
    return { agent, journey, runs: runs.length, passed_runs: passedRuns, passed_every_run: passedRuns === runs.length };
  });
  const byK: Record<string, number> = {};
  for (let k = 1; k <= context.repeat; k++) {
    const estimates = journeys.map((journey) => choose(journey.passed_runs, k) / choose(journey.runs, k));
    byK[String(k)] = rate(estimates.reduce((sum, value) => sum + value, 0), estimates.length);
  }
  const judgedResults = steps.flatMap((step) => step.judged.map((result) => ({ run: step.run, agent: step.agent, journey: step.journey, step: step.step, judged: true, ...result })));
  const meanScore = (check: string) => {
    const scores = judgedResults.filter((result) => result.check === check && result.score !== undefined).map((result) => result.score ?? 0);
    return scores.length ? Math.round((scores.reduce((sum, value) => sum + value, 0) / scores.length) * 100) / 100 : null;
  };
  return {
    model: context.model,
    base_url_host: new URL(context.baseUrl).host,
    release: context.release,
    date: context.date,
    config: context.config,
    repeat: context.repeat,
    agents: context.agents,
    summary: { ...overall, pass_rate: rate(overall.passed, overall.total) },
    /** what the graded steps cost, from each turn's `done` event */
    totals: {
      model_calls: steps.reduce((sum, step) => sum + step.iterations, 0),
      prompt_tokens: steps.reduce((sum, step) => sum + step.usage.prompt_tokens, 0),
      completion_tokens: steps.reduce((sum, step) => sum + step.usage.completion_tokens, 0),
      total_tokens: steps.reduce((sum, step) => sum + step.usage.total_tokens, 0),
    },
    checks,
    journeys,
    pass_hat_k: { k: context.repeat, value: byK[String(context.repeat)] ?? 0, by_k: byK },
    steps: steps.map(({ results: stepResults, judged: _judged, ...step }) => ({
      ...step,
      outcome: stepResults.some((result) => result.outcome === "error") ? "error" : stepResults.every((result) => result.outcome === "pass") ? "pass" : "fail",
      not_passed: stepResults.filter((result) => result.outcome !== "pass").map((result) => result.check),
    })),
    results,
    ...(context.judgeModel
      ? {
          judged: {
            model: context.judgeModel,
            summary: tally(judgedResults.map((result) => result.outcome)),
            mean_scores: { persona: meanScore("judge.persona"), intent: meanScore("judge.intent") },
            results: judgedResults,
          },
        }
      : {}),
  };
}

export type EvalReport = ReturnType<typeof buildReport>;

const percent = (value: number) => `${Math.round(value * 100)}%`;

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)];
}

/** The table printed on stdout: each check's pass rate, each journey's runs, the summary and pass^k. */
export function reportTable(report: EvalReport): string {
  const lines = [
    `BMAD adherence eval: ${report.model} at ${report.base_url_host}, ${report.release}, ${report.date}`,
    "",
    ...table(
      ["check", "graded", "passed", "failed", "errors", "pass rate"],
      report.checks.map((check) => [check.check, String(check.graded), String(check.passed), String(check.failed), String(check.errors), percent(check.pass_rate)]),
    ),
    "",
    ...table(
      ["agent", "journey", "runs passed"],
      report.journeys.map((journey) => [journey.agent, journey.journey, `${journey.passed_runs}/${journey.runs}`]),
    ),
    "",
    `summary: ${report.summary.passed}/${report.summary.total} checks passed (${percent(report.summary.pass_rate)}), ${report.summary.failed} failed, ${report.summary.errors} errors; ` +
      `pass^${report.pass_hat_k.k} ${percent(report.pass_hat_k.value)}`,
    `cost: ${report.totals.model_calls} model calls, ${report.totals.total_tokens} tokens (${report.totals.prompt_tokens} prompt, ${report.totals.completion_tokens} completion)`,
  ];
  if (report.judged) {
    lines.push(
      `judged by ${report.judged.model} (not in the summary): ${report.judged.summary.passed}/${report.judged.summary.total} passed; ` +
        `mean persona ${report.judged.mean_scores.persona ?? "-"}, mean intent ${report.judged.mean_scores.intent ?? "-"} (of 5)`,
    );
  }
  return lines.join("\n");
}

/** report.md: the same table, then every check that did not pass with its reason, and the judged scores. */
export function reportMarkdown(report: EvalReport): string {
  const markdownTable = (header: readonly string[], rows: ReadonlyArray<readonly string[]>) => [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.map((cell) => cell.replace(/\|/g, "\\|").replace(/\n/g, " ")).join(" | ")} |`),
  ];
  const notPassed = report.results.filter((result) => result.outcome !== "pass");
  const lines = [
    `# BMAD adherence eval: ${report.model}`,
    "",
    `- endpoint: ${report.base_url_host}`,
    `- BMAD: ${report.release}`,
    `- date: ${report.date}`,
    `- config: user_name ${report.config.user_name}, communication_language ${report.config.communication_language}, output folder ${report.config.output_folder}/`,
    `- cost: ${report.totals.model_calls} model calls, ${report.totals.total_tokens} tokens (${report.totals.prompt_tokens} prompt, ${report.totals.completion_tokens} completion)`,
    `- repeats: ${report.repeat}; agents: ${report.agents.map((agent) => `${agent.id} (${agent.kind}: ${agent.journeys.join(", ")})`).join("; ")}`,
    "",
    `**${report.summary.passed} of ${report.summary.total} graded checks passed (${percent(report.summary.pass_rate)})**, ${report.summary.failed} failed, ${report.summary.errors} errors. ` +
      `pass^${report.pass_hat_k.k}: ${percent(report.pass_hat_k.value)} (${Object.entries(report.pass_hat_k.by_k).map(([k, value]) => `pass^${k} ${percent(value)}`).join(", ")}).`,
    "",
    "## Checks",
    "",
    ...markdownTable(
      ["check", "graded", "passed", "failed", "errors", "pass rate"],
      report.checks.map((check) => [check.check, String(check.graded), String(check.passed), String(check.failed), String(check.errors), percent(check.pass_rate)]),
    ),
    "",
    "## Journeys",
    "",
    ...markdownTable(["agent", "journey", "runs passed", "passed every run"], report.journeys.map((journey) => [journey.agent, journey.journey, `${journey.passed_runs}/${journey.runs}`, journey.passed_every_run ? "yes" : "no"])),
    "",
    "## Checks that did not pass",
    "",
    ...(notPassed.length
      ? markdownTable(["run", "agent", "journey", "step", "check", "outcome", "why"], notPassed.map((result) => [String(result.run), result.agent, result.journey, result.step, result.check, result.outcome, result.reason]))
      : ["None."]),
  ];
  if (report.judged) {
    lines.push(
      "",
      `## Judged (by ${report.judged.model}; not part of the summary above)`,
      "",
      `Mean persona ${report.judged.mean_scores.persona ?? "-"}, mean intent ${report.judged.mean_scores.intent ?? "-"} (1 to 5; 4 or more passes).`,
      "",
      ...markdownTable(
        ["run", "agent", "journey", "step", "check", "score", "outcome", "why"],
        report.judged.results.map((result) => [String(result.run), result.agent, result.journey, result.step, result.check, String(result.score ?? "-"), result.outcome, result.reason]),
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}
