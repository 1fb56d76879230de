/**
 * Measure 8: starting a workflow with a slow model. With `preload_workflow` the model makes one tool call
 * and then answers (2 model calls); without it, a model reads the workflow.yaml, instructions, template,
 * checklist and engine with read_file, one per model call, then answers (6 model calls). Both run through
 * the whole system; the scripted model waits `delay` before every answer.
 */
import type { BenchContext } from "./support/bench-context.js";
import { pick } from "./support/bench-settings.js";
import { chatJson, type ChatAnswer } from "./support/gateway-client.js";
import { interleave } from "./support/interleave.js";
import { formatMs, formatRatio, type MeasureReport } from "./support/measure-report.js";
import { summarize } from "./support/stats.js";

/** The model latency the issue asks about. */
const targetDelayMs = 2_000;
/** A quick run scales time down and extrapolates (stated in the output). */
const delayMs = pick(targetDelayMs, 200);
const rounds = pick(3, 1);

export async function measureWorkflowStart(context: BenchContext): Promise<MeasureReport> {
  const { system, tree, responder } = context;
  const answers: Record<"preload" | "readFiles", ChatAnswer[]> = { preload: [], readFiles: [] };
  const run = (kind: keyof typeof answers, message: string) => async () => {
    const started = performance.now();
    answers[kind].push(await chatJson(system.gatewayUrl, { agent_id: tree.plannerAgent, message }));
    return performance.now() - started;
  };
  // warm-up at zero latency: the same code paths, without paying the model's seconds
  responder.delayMs = 0;
  await run("preload", "preload 1")();
  await run("readFiles", "readall 1")();
  answers.preload.length = 0;
  answers.readFiles.length = 0;
  responder.delayMs = delayMs;
  let samples: Record<keyof typeof answers, number[]>;
  try {
    samples = await interleave(
      { preload: run("preload", "preload 1"), readFiles: run("readFiles", "readall 1") },
      { warmup: 0, samples: rounds, betweenRounds: context.settle },
    );
  } finally {
    responder.delayMs = 0;
  }

  const calls = (kind: keyof typeof answers) => answers[kind][0]?.iterations ?? Number.NaN;
  const promptTokens = (kind: keyof typeof answers) => answers[kind][0]?.usage.prompt_tokens ?? Number.NaN;
  const wall = { preload: summarize(samples.preload).p50, readFiles: summarize(samples.readFiles).p50 };
  // what is not the model's waiting: our overhead and the model server's own work; it does not scale with the delay
  const overhead = (kind: keyof typeof answers) => wall[kind] - calls(kind) * delayMs;
  const at2s = (kind: keyof typeof answers) => calls(kind) * targetDelayMs + overhead(kind);
  const measuredRatio = wall.readFiles / wall.preload;
  const ratioAt2s = at2s("readFiles") / at2s("preload");
  const scaled = delayMs !== targetDelayMs;
  return {
    id: 8,
    title: "starting a workflow",
    method:
      `Through the whole system (services in this process), model delay ${delayMs} ms per call${scaled ? ` (scaled down; figures at ${targetDelayMs} ms are extrapolated: calls × ${targetDelayMs} ms + the measured non-model time)` : ""}: ` +
      `the model calls preload_workflow then answers, vs reads workflow.yaml, instructions, template, checklist and engine with read_file ` +
      `one per call, then answers; one warm-up pair at zero latency, then ${rounds} round(s) each, interleaved; p50 wall time at the client.`,
    rows: [
      {
        label: "model calls",
        baseline: String(calls("readFiles")),
        system: String(calls("preload")),
        result: String(calls("preload")),
        target: "2 model calls",
        met: calls("preload") === 2,
      },
      {
        label: `wall time${scaled ? ` (measured at ${delayMs} ms)` : ""}`,
        baseline: formatMs(wall.readFiles),
        system: formatMs(wall.preload),
        result: `${formatRatio(measuredRatio)} faster`,
        ...(scaled ? {} : { target: "≥ 3× faster", met: measuredRatio >= 3 }),
      },
      ...(scaled
        ? [
            {
              label: `wall time at ${targetDelayMs} ms (extrapolated)`,
              baseline: formatMs(at2s("readFiles")),
              system: formatMs(at2s("preload")),
              result: `${formatRatio(ratioAt2s)} faster`,
              target: "≥ 3× faster",
              met: ratioAt2s >= 3,
            },
          ]
        : []),
      {
        label: "prompt tokens sent, all calls",
        baseline: String(promptTokens("readFiles")),
        system: String(promptTokens("preload")),
        result: `${formatRatio(promptTokens("readFiles") / promptTokens("preload"))} fewer`,
      },
    ],
    details: { delayMs, targetDelayMs, rounds, wall, samples, calls: { preload: calls("preload"), readFiles: calls("readFiles") }, overheadMs: { preload: overhead("preload"), readFiles: overhead("readFiles") } },
    notes: [
      `Model calls bound the speed-up: 6 calls against 2 is 3× of model time. The non-model time of the turn (${formatMs(overhead("preload"))} with preload, ` +
        `${formatMs(overhead("readFiles"))} reading one by one) is added to both, so the ratio lands just above 3× only if reading file by file costs more than three times the preload turn's non-model time.`,
      "Each read_file call resends the whole conversation so far, so reading files one by one also costs more prompt tokens (scripted-model estimate, summed over the turn's calls).",
    ],
  };
}
