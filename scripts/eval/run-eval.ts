/**
 * One eval: the install prepared with the eval's config, the real system started against the endpoint, every
 * journey of every chosen agent run `repeat` times through the public API (each journey in a project of its
 * own, so no run sees another's files), each step graded as it ends, then the report written and printed.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EvalClient, type AgentDetail, type Greeting, type TurnRecord } from "./eval-client.js";
import { gradeStep, projectPath, type CheckResult, type StepRecord } from "./eval-checks.js";
import { prepareEvalInstall } from "./eval-install.js";
import { compactionJourney, planJourneys, releaseKindOf, type Journey } from "./eval-journeys.js";
import { judgeStep, type JudgeSettings } from "./eval-judge.js";
import { defaultRelease, type EvalOptions } from "./eval-options.js";
import { buildReport, reportMarkdown, reportTable, type EvalReport, type GradedStep } from "./eval-report.js";
import { startEvalSystem } from "./eval-system.js";

export interface EvalOutput {
  /** progress lines (stderr in the command) */
  progress(line: string): void;
  /** the final table (stdout in the command) */
  table(text: string): void;
}

const silent: EvalOutput = { progress: () => {}, table: () => {} };

function keyOf(variable: string | undefined, flag: string): string | undefined {
  if (variable === undefined) return undefined;
  const value = process.env[variable];
  if (!value) throw new Error(`${flag} ${variable}: the variable is not set`);
  return value;
}

/** Runs the eval and returns its report (also written to `options.out` when given). */
export async function runEval(options: EvalOptions, output: EvalOutput = silent): Promise<EvalReport> {
  const apiKey = keyOf(options.apiKeyEnv, "--api-key-env");
  const judge: JudgeSettings | undefined = options.judgeModel
    ? { model: options.judgeModel, baseUrl: options.judgeBaseUrl ?? options.baseUrl, apiKey: options.judgeApiKeyEnv ? keyOf(options.judgeApiKeyEnv, "--judge-api-key-env") : apiKey }
    : undefined;
  const config = { userName: options.userName, language: options.language };
  const release = options.release ?? defaultRelease;
  output.progress(`preparing ${options.bmadRoot ?? `bmad-method@${release}`} with user_name ${config.userName}, communication_language ${config.language}`);
  const install = await prepareEvalInstall({ ...(options.bmadRoot ? { bmadRoot: options.bmadRoot } : {}), release, tool: options.tool }, config);
  try {
    output.progress("starting NATS and the four services");
    const system = await startEvalSystem({ bmadRoot: install.root, baseUrl: options.baseUrl, model: options.model, apiKey });
    try {
      const client = new EvalClient(system.url);
      const agents = await chosenAgents(client, options.agents);
      const plans = await Promise.all(agents.map(async (agent) => ({ agent, journeys: await planJourneys(agent, install.root) })));
      const steps: GradedStep[] = [];
      const runPlans = async (on: EvalClient, planned: ReadonlyArray<{ agent: AgentDetail; journeys: Journey[] }>) => {
        for (let run = 1; run <= options.repeat; run++) {
          for (const { agent, journeys } of planned) {
            for (const journey of journeys) {
              const graded = await runJourney({ client: on, agent, journey, run, config, outputFolder: install.outputFolder, judge, out: options.out });
              for (const step of graded) {
                const passed = step.results.filter((result) => result.outcome === "pass").length;
                output.progress(`run ${run}/${options.repeat} ${agent.id} ${journey.name}/${step.step}: ${passed}/${step.results.length} checks passed`);
              }
              steps.push(...graded);
            }
          }
        }
      };
      await runPlans(client, plans);
      // the compaction journey runs where the model's window is small, so no other journey is compacted
      const compactions = options.compactionWindow === undefined ? [] : plans.flatMap(({ agent }) => compactionPlan(agent));
      if (options.compactionWindow !== undefined && compactions.length > 0) {
        output.progress(`starting a second system whose model's window is ${options.compactionWindow} tokens, for the compaction journey`);
        const small = await startEvalSystem({ bmadRoot: install.root, baseUrl: options.baseUrl, model: options.model, apiKey, orchestratorEnv: smallWindow(options.compactionWindow) });
        try {
          await runPlans(new EvalClient(small.url), compactions);
        } finally {
          await small.stop();
        }
      }
      const report = buildReport(
        {
          model: options.model,
          baseUrl: options.baseUrl,
          release: install.source,
          date: new Date().toISOString(),
          config: { user_name: config.userName, communication_language: config.language, output_folder: install.outputFolder },
          repeat: options.repeat,
          agents: plans.map(({ agent, journeys }) => ({
            id: agent.id,
            kind: releaseKindOf(agent.format),
            journeys: [...journeys, ...compactions.filter((plan) => plan.agent === agent).flatMap((plan) => plan.journeys)].map((journey) => journey.name),
          })),
          ...(judge ? { judgeModel: judge.model } : {}),
        },
        steps,
      );
      if (options.out) {
        await mkdir(options.out, { recursive: true });
        await writeFile(join(options.out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
        await writeFile(join(options.out, "report.md"), reportMarkdown(report));
      }
      output.table(reportTable(report));
      return report;
    } finally {
      await system.stop();
    }
  } finally {
    await install.remove();
  }
}

/** An agent's compaction journey, when it has a workflow to run. */
function compactionPlan(agent: AgentDetail): Array<{ agent: AgentDetail; journeys: Journey[] }> {
  const journey = compactionJourney(agent);
  return journey ? [{ agent, journeys: [journey] }] : [];
}

/** The orchestrator's settings for a small window: the window, and a quarter of it (at most 4,096 tokens) for the answer. */
const smallWindow = (tokens: number): Record<string, string> => ({ MODEL_CONTEXT_WINDOW: String(tokens), MODEL_OUTPUT_RESERVE: String(Math.min(4_096, Math.floor(tokens / 4))) });

/** The agents asked for (by id, `bmm/analyst`, or by name, `analyst`), or every agent the install ships. */
async function chosenAgents(client: EvalClient, wanted: readonly string[]): Promise<AgentDetail[]> {
  const ids = await client.agentIds();
  if (ids.length === 0) throw new Error("the install ships no agent the system can list");
  const chosen = wanted.length === 0 ? ids : wanted.map((name) => ids.find((id) => id === name || id.split("/").pop() === name) ?? name);
  const unknown = chosen.filter((id) => !ids.includes(id));
  if (unknown.length) throw new Error(`--agents: ${unknown.join(", ")} not in the install (it ships ${ids.join(", ")})`);
  return Promise.all(chosen.map((id) => client.agent(id)));
}

interface JourneyRun {
  client: EvalClient;
  agent: AgentDetail;
  journey: Journey;
  run: number;
  config: { userName: string; language: string };
  outputFolder: string;
  judge: JudgeSettings | undefined;
  out: string | undefined;
}

/** One journey in a new project: its steps in order, each graded when it ends; its transcript written. */
async function runJourney(context: JourneyRun): Promise<GradedStep[]> {
  const { client, agent, journey, run } = context;
  const transcript = `transcripts/run-${run}/${agent.id.replace(/[^\w.-]+/g, "_")}-${journey.name}.json`;
  const turns: TurnRecord[] = [];
  const graded: GradedStep[] = [];
  let failure: string | undefined;
  try {
    const projectId = await client.createProject(`eval run ${run} ${agent.id} ${journey.name}`);
    const systemGreeting: Greeting | undefined = journey.name === "activation" ? await client.greeting(agent.id, projectId) : undefined;
    let sessionId = journey.startWithGreeting ? await client.startSession(agent.id, projectId) : undefined;
    for (const step of journey.steps) {
      const compacting = step.name === journey.compactBefore ? await beforeResume(client, projectId, sessionId, turns) : undefined;
      const turn = await client.chat({ agent_id: agent.id, message: step.message, project_id: projectId, ...(sessionId ? { session_id: sessionId } : {}) });
      sessionId = turn.sessionId ?? sessionId;
      const files = await client.files(projectId);
      const compaction = compacting ? await compacting(turn) : undefined;
      const results = gradeStep({ journey, step, agent, turn, earlier: [...turns], config: context.config, systemGreeting, outputFolder: context.outputFolder, files, ...(compaction ? { compaction } : {}) });
      const judged = context.judge ? await judgeStep(context.judge, agent, step, turn) : [];
      turns.push(turn);
      const done = turn.events.find((event) => event.type === "done");
      graded.push({
        run,
        agent: agent.id,
        journey: journey.name,
        step: step.name,
        message: step.message,
        iterations: done?.type === "done" ? done.iterations : 0,
        usage: done?.type === "done" ? done.usage : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        transcript: context.out ? transcript : "",
        results,
        judged,
      });
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    // the steps the failure kept from running are graded as errors, so a broken run is never a silent gap
    for (const step of journey.steps.slice(graded.length)) {
      const results: CheckResult[] = step.checks.map((check) => ({ check, outcome: "error", reason: `the journey stopped: ${failure ?? ""}` }));
      graded.push({ run, agent: agent.id, journey: journey.name, step: step.name, message: step.message, iterations: 0, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, transcript: context.out ? transcript : "", results, judged: [] });
    }
  }
  if (context.out) {
    const file = join(context.out, transcript);
    await mkdir(join(file, ".."), { recursive: true });
    const steps = journey.steps.map((step, index) => ({ step: step.name, message: step.message, events: turns[index]?.events ?? [], refused: turns[index]?.refused }));
    await writeFile(file, `${JSON.stringify({ run, agent: agent.id, journey: journey.name, ...(failure ? { failure } : {}), steps }, null, 2)}\n`);
  }
  return graded;
}

/**
 * Before the compaction journey's resume: the chat compacted by hand when its window has not compacted it yet, and
 * the documents the journey wrote read as they are; after the step, read again (eval-checks.ts "resume.same_document").
 */
async function beforeResume(
  client: EvalClient,
  projectId: string,
  sessionId: string | undefined,
  turns: readonly TurnRecord[],
): Promise<(turn: TurnRecord) => Promise<NonNullable<StepRecord["compaction"]>>> {
  const compacted = turns.some((turn) => turn.events.some((event) => event.type === "compaction"));
  if (!compacted && sessionId) await client.compact(sessionId);
  const written = new Set(
    turns.flatMap((turn) =>
      turn.events.flatMap((event) => (event.type === "tool_result" && event.success && (event.name === "save_output" || event.name === "edit_file") && event.path ? [projectPath(event.path)] : [])),
    ),
  );
  const before = await Promise.all([...written].map(async (path) => ({ path, before: (await client.fileContent(projectId, path)) ?? "" })));
  return async () => ({
    byHand: !compacted,
    documents: await Promise.all(before.map(async (document) => ({ ...document, after: await client.fileContent(projectId, document.path) }))),
  });
}
