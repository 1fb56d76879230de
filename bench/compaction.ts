/**
 * Measure 19: compaction over a long workflow (docs/models.md "Compaction"). BMAD 6.12's step-file workflow
 * `bmad-create-epics-and-stories`, twelve turns with the PM run by a scripted model that finds its step and document
 * in its prompt alone (@agent-orchestrator/testing's epics-workflow-responder.ts), through the whole system twice: once with the
 * default window (128,000 tokens: never compacted) and once on a route with a 16,000-token window (compacted), the
 * model server accepting both. Tokens counted with o200k_base (support/prompt-tokens.ts):
 *
 * - the prompt tokens sent over the whole workflow, hand-off summaries included, with compaction against without;
 * - the share of each call's prompt that repeats the previous call's from its start (what a provider's prompt cache
 *   serves), before the first compaction, at the call right after each compaction, and for the calls after it.
 */
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { epicsWorkflowResponder, epicsWorkflowTurns } from "@agent-orchestrator/testing/epics-workflow-responder";
import { startHttpModel, type ChatRequestBody } from "@agent-orchestrator/testing/http-model";
import type { BenchContext } from "./support/bench-context.js";
import { chatJson } from "./support/gateway-client.js";
import type { MeasureReport } from "./support/measure-report.js";
import { commonPrefixTokens, promptTokens, serializedPrompt } from "./support/prompt-tokens.js";

const release = { version: "6.12.0", tool: "claude-code" };
const agent = "bmm/pm";
const smallWindow = 16_000;
const document = "_bmad-output/planning-artifacts/lighthouse-epics.md";

interface WorkflowRun {
  calls: Array<{ body: ChatRequestBody; summary: boolean }>;
  answers: string[];
  document: string;
  compactions: Array<{ stage: string; before_tokens: number; after_tokens: number }>;
}

const isSummary = (body: ChatRequestBody) => String(body.messages[0]?.content).startsWith("You write the hand-off note");

export async function measureCompaction(context: BenchContext): Promise<MeasureReport> {
  const root = await ensureBmadInstall(release);
  const model = await startHttpModel({ responder: epicsWorkflowResponder });
  try {
    const run = async (prefix: string, overrides: Record<string, string>): Promise<WorkflowRun> => {
      const system = await context.startSystem(prefix, "in-process", { BMAD_ROOT: root, OPENAI_BASE_URL: model.url, ...overrides });
      model.requests.length = 0;
      let sessionId: string | undefined;
      const answers: string[] = [];
      for (const turn of epicsWorkflowTurns) {
        const answer = await chatJson(system.gatewayUrl, { agent_id: agent, message: turn.message, ...(sessionId ? { session_id: sessionId } : {}) });
        sessionId = answer.session_id;
        answers.push(answer.response);
      }
      const calls = model.requests.map((request) => ({ body: request.body, summary: isSummary(request.body) }));
      const view = (await (await fetch(`${system.gatewayUrl}/api/sessions/${sessionId ?? ""}`)).json()) as { session: { project_id: string; compactions?: WorkflowRun["compactions"] } };
      const file = (await (await fetch(`${system.gatewayUrl}/api/projects/${view.session.project_id}/files/${document}`)).json()) as { content?: string };
      return { calls, answers, document: file.content ?? "", compactions: view.session.compactions ?? [] };
    };
    const without = await run("bench19a.", {});
    const compacted = await run("bench19b.", {
      MODEL_ROUTES: JSON.stringify({ routes: [{ name: "pm-small", match: { agent }, model: "scripted", context_window: smallWindow, output_reserve: 2_000 }] }),
    });

    const sent = (workflow: WorkflowRun) => workflow.calls.reduce((sum, call) => sum + promptTokens(call.body).total, 0);
    const largest = (workflow: WorkflowRun) => Math.max(...workflow.calls.map((call) => promptTokens(call.body).total));
    const shares = prefixShares(compacted.calls.filter((call) => !call.summary).map((call) => call.body));
    const percent = (share: number | undefined) => (share === undefined ? "—" : `${(share * 100).toFixed(1)} %`);
    const minMedian = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `${percent(sorted[0])} / ${percent(sorted[Math.floor(sorted.length / 2)])}`;
    };
    const sections = (text: string) => [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]).join(" | ");
    const sameDocument = sections(without.document) === sections(compacted.document) && sections(compacted.document).split(" | ").length === 9;
    const lost = [...without.answers, ...compacted.answers].filter((answer) => answer.includes("LOST")).length;
    const withTokens = sent(compacted);
    const withoutTokens = sent(without);
    return {
      id: 19,
      title: "compaction over a long workflow",
      method:
        `BMAD ${release.version} installed for ${release.tool}, through the whole system (services in this process) and a scripted PM (${agent}) that runs ` +
        `bmad-create-epics-and-stories for ${epicsWorkflowTurns.length} turns knowing only its prompt; once on the default window (128,000 tokens, never compacted), ` +
        `once on a route with a ${smallWindow}-token window (compacted at 80 %), the model server accepting both. Prompt tokens counted with o200k_base, ` +
        "hand-off summaries included. The prefix share of a call: the tokens its serialized prompt (tools, then messages) shares from the start with the previous " +
        "agent call's, over its own tokens; the call right after a compaction is the one whose messages do not start with the previous call's.",
      rows: [
        {
          label: `${agent}, ${epicsWorkflowTurns.length}-turn 6.12 workflow: prompt tokens sent over the whole workflow, without compaction / with (${smallWindow}-token window)`,
          baseline: String(withoutTokens),
          system: String(withTokens),
          result: `${((1 - withTokens / withoutTokens) * 100).toFixed(1)} % fewer`,
        },
        {
          label: `${agent}: the largest prompt of the workflow, without / with compaction (tokens)`,
          baseline: String(largest(without)),
          system: String(largest(compacted)),
          result: `within ${smallWindow}: ${largest(compacted) <= smallWindow ? "yes" : "no"}`,
          target: `below ${smallWindow}`,
          met: largest(compacted) <= smallWindow,
        },
        {
          label: `${agent}: compactions (stage: prompt tokens before → after, the orchestrator's count)`,
          baseline: "none",
          system: compacted.compactions.map((compaction) => `${compaction.stage}: ${compaction.before_tokens} → ${compaction.after_tokens}`).join("; "),
          result: `${compacted.compactions.length}, ${compacted.calls.filter((call) => call.summary).length} summary calls`,
        },
        {
          label: `${agent}, with compaction: share of each call's prompt repeating the previous call's, min / median, before the first compaction`,
          baseline: "—",
          system: minMedian(shares.before),
          result: minMedian(shares.before),
        },
        {
          label: `${agent}, with compaction: the same at each call right after a compaction / for the calls after it, min / median`,
          baseline: "—",
          system: shares.boundaries.map(percent).join(", "),
          result: minMedian(shares.after),
          target: "the calls after a compaction share their prefix again",
          met: shares.after.length > 0 && Math.min(...shares.after) > 0.5,
        },
        {
          label: `${agent}: the workflow's document, its sections the same with and without compaction; turns that lost their place`,
          baseline: "—",
          system: sameDocument ? "the same 9 sections" : "different",
          result: `${lost} lost`,
          target: "the same, none lost",
          met: sameDocument && lost === 0,
        },
      ],
      details: {
        release,
        window: smallWindow,
        tokens: { without: withoutTokens, with: withTokens },
        compactions: compacted.compactions,
        shares,
        calls: { without: without.calls.length, with: compacted.calls.length },
      },
      notes: [
        "The scripted PM presents each draft at about 3,000 characters in the chat, as BMAD's agents do; the step files are the install's (9-11 KB each).",
        "A compaction changes the prompt once: its call is read anew; the calls after it repeat it again.",
      ],
    };
  } finally {
    await model.close();
  }
}

/** Each agent call's prefix share with the call before it, split at the calls whose messages do not extend the previous call's. */
function prefixShares(bodies: readonly ChatRequestBody[]): { before: number[]; boundaries: number[]; after: number[] } {
  const shares = { before: [] as number[], boundaries: [] as number[], after: [] as number[] };
  let compacted = false;
  for (let index = 1; index < bodies.length; index++) {
    const previous = bodies[index - 1] as ChatRequestBody;
    const current = bodies[index] as ChatRequestBody;
    const tokens = serializedPrompt(current);
    const share = commonPrefixTokens(serializedPrompt(previous), tokens) / tokens.length;
    const extendsPrevious = previous.messages.every((message, position) => JSON.stringify(message) === JSON.stringify(current.messages[position]));
    if (!extendsPrevious) {
      compacted = true;
      shares.boundaries.push(share);
    } else (compacted ? shares.after : shares.before).push(share);
  }
  return shares;
}
