/**
 * The eval's report, made from the graded steps of every run: pass^k (τ-bench's measure: the chance that a journey
 * passes in all of k runs, estimated from n repeats as C(c, k) / C(n, k), c being its passing runs; per journey, and
 * averaged over journeys: for k = n, the share of journeys that passed in every run), the steps that need tools,
 * the summary over every graded check, and the pass rate of each check over the repeats. The report leads with the
 * first two: a model that never calls a tool passes most checks (docs/eval.md "The report"). The same data becomes
 * the table, report.json and report.md.
 */
import type { CheckResult, Outcome } from "./eval-checks.js";
import { toolChecks } from "./eval-journeys.js";
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

/** pass^k for k = 1 … repeat of one journey that passed `passed` of `runs` runs; a k past its runs is 0. */
function passHatK(passed: number, runs: number, repeat: number): Record<string, number> {
  const byK: Record<string, number> = {};
  for (let k = 1; k <= repeat; k++) byK[String(k)] = k > runs ? 0 : choose(passed, k) / choose(runs, k);
  return byK;
}

const stepPassed = (step: GradedStep) => step.results.every((result) => result.outcome === "pass");

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
    const byK = passHatK(passedRuns, runs.length, context.repeat);
    return {
      agent,
      journey,
      runs: runs.length,
      passed_runs: passedRuns,
      passed_every_run: passedRuns === runs.length,
      pass_hat_k: Object.fromEntries(Object.entries(byK).map(([k, value]) => [k, rate(value, 1)])),
    };
  });
  const byK: Record<string, number> = {};
  for (let k = 1; k <= context.repeat; k++) {
    const estimates = journeys.map((journey) => passHatK(journey.passed_runs, journey.runs, context.repeat)[String(k)] ?? 0);
    byK[String(k)] = rate(estimates.reduce((sum, value) => sum + value, 0), estimates.length);
  }
  const toolSteps = steps.filter((step) => step.results.some((result) => toolChecks.includes(result.check)));
  const toolStepKeys = [...new Set(toolSteps.map((step) => `${step.agent}\u0000${step.journey}\u0000${step.step}`))];
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
    /** the steps graded by a check that only a tool call passes (eval-journeys.ts `toolChecks`); a step passes when all its checks do */
    tool_steps: {
      total: toolSteps.length,
      passed: toolSteps.filter(stepPassed).length,
      pass_rate: rate(toolSteps.filter(stepPassed).length, toolSteps.length),
      steps: toolStepKeys.map((key) => {
        const [agent = "", journey = "", step = ""] = key.split("\u0000");
        const runs = toolSteps.filter((graded) => graded.agent === agent && graded.journey === journey && graded.step === step);
        const needs = [...new Set(runs.flatMap((graded) => graded.results.map((result) => result.check)).filter((check) => toolChecks.includes(check)))];
        return { agent, journey, step, needs, runs: runs.length, passed_runs: runs.filter(stepPassed).length };
      }),
    },
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

/** The headline: pass^k over journeys and the steps that need tools first, the share of checks after them. */
function headline(report: EvalReport): string {
  const { pass_hat_k: passHat, tool_steps: toolSteps, summary } = report;
  return (
    `pass^${passHat.k} ${percent(passHat.value)} of journeys; steps that need tools ${toolSteps.passed}/${toolSteps.total} passed (${percent(toolSteps.pass_rate)}); ` +
    `checks ${summary.passed}/${summary.total} passed (${percent(summary.pass_rate)}), ${summary.failed} failed, ${summary.errors} errors`
  );
}

const kColumns = (report: EvalReport) => Object.keys(report.pass_hat_k.by_k).map((k) => `pass^${k}`);

/** Each journey's passing runs and pass^k, then every journey's together. */
function journeyRows(report: EvalReport): string[][] {
  return [
    ...report.journeys.map((journey) => [journey.agent, journey.journey, `${journey.passed_runs}/${journey.runs}`, ...Object.values(journey.pass_hat_k).map(percent)]),
    ["all journeys", "", "", ...Object.values(report.pass_hat_k.by_k).map(percent)],
  ];
}

const toolStepRows = (report: EvalReport) =>
  report.tool_steps.steps.map((step) => [step.agent, step.journey, step.step, step.needs.join(", "), `${step.passed_runs}/${step.runs}`]);

/** The table printed on stdout: the headline, pass^k per journey, the steps that need tools, then each check's pass rate. */
export function reportTable(report: EvalReport): string {
  const lines = [
    `BMAD adherence eval: ${report.model} at ${report.base_url_host}, ${report.release}, ${report.date}`,
    headline(report),
    "",
    ...table(["agent", "journey", "runs passed", ...kColumns(report)], journeyRows(report)),
    "",
    `steps that need tools: ${report.tool_steps.passed}/${report.tool_steps.total} passed (${percent(report.tool_steps.pass_rate)})`,
    ...table(["agent", "journey", "step", "needs", "runs passed"], toolStepRows(report)),
    "",
    `every graded check (most pass without a tool call): ${report.summary.passed}/${report.summary.total} passed (${percent(report.summary.pass_rate)})`,
    ...table(
      ["check", "graded", "passed", "failed", "errors", "pass rate"],
      report.checks.map((check) => [check.check, String(check.graded), String(check.passed), String(check.failed), String(check.errors), percent(check.pass_rate)]),
    ),
    "",
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

/** report.md: the same tables, then every check that did not pass with its reason, and the judged scores. */
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
    `**pass^${report.pass_hat_k.k}: ${percent(report.pass_hat_k.value)} of journeys** (${Object.entries(report.pass_hat_k.by_k).map(([k, value]) => `pass^${k} ${percent(value)}`).join(", ")}). ` +
      `**Steps that need tools: ${report.tool_steps.passed} of ${report.tool_steps.total} passed (${percent(report.tool_steps.pass_rate)}).**`,
    "",
    `Every graded check: ${report.summary.passed} of ${report.summary.total} passed (${percent(report.summary.pass_rate)}), ${report.summary.failed} failed, ${report.summary.errors} errors; ` +
      "most pass without a tool call, so this share flatters a model that never calls one.",
    "",
    "## Journeys",
    "",
    ...markdownTable(["agent", "journey", "runs passed", ...kColumns(report)], journeyRows(report)),
    "",
    "## Steps that need tools",
    "",
    ...markdownTable(["agent", "journey", "step", "needs", "runs passed"], toolStepRows(report)),
    "",
    "## Checks",
    "",
    ...markdownTable(
      ["check", "graded", "passed", "failed", "errors", "pass rate"],
      report.checks.map((check) => [check.check, String(check.graded), String(check.passed), String(check.failed), String(check.errors), percent(check.pass_rate)]),
    ),
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
