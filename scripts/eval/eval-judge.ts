/**
 * The optional judge (`--judge-model`): a model asked, with a fixed rubric, what rules cannot decide (does the
 * agent stay in its persona; does it do what the step is for). Its scores are reported apart from the rules'
 * results, marked as judged, and never count in the rule-based summary. Plain fetch: one non-streamed
 * chat-completions call per step, the wire format every OpenAI-compatible server takes.
 */
import type { RunEvent } from "@agent-orchestrator/shared/wire";
import type { AgentDetail, TurnRecord } from "./eval-client.js";
import type { JourneyStep } from "./eval-journeys.js";

export interface JudgeSettings {
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
}

export type JudgedCheck = "judge.persona" | "judge.intent";

export interface JudgedResult {
  check: JudgedCheck;
  /** 1 (not at all) to 5 (fully); absent when the judge gave no usable answer */
  score?: number;
  outcome: "pass" | "fail" | "error";
  reason: string;
}

/** Scores at or above this pass. */
export const judgePassScore = 4;

export const judgeRubric = [
  "You grade one turn of a BMAD agent talking to a user. Score two things from 1 to 5:",
  "persona: 5 = speaks throughout as the agent described (name, role, communication style), never as a generic assistant; 3 = mostly, with lapses; 1 = not at all.",
  "intent: 5 = does exactly what the step is for, following its workflow's instructions, no more and no less; 3 = partly, or with extra steps the user did not ask for; 1 = ignores it.",
  'Answer with one JSON object and nothing else: {"persona": <1-5>, "intent": <1-5>, "reason": "<one sentence>"}.',
].join("\n");

/** What the judge reads of a turn: the user's message, the tools called, the answer. */
export function judgePrompt(agent: AgentDetail, step: JourneyStep, turn: TurnRecord): string {
  const calls = turn.events
    .filter((event): event is Extract<RunEvent, { type: "tool_call" }> => event.type === "tool_call")
    .map((call) => `- ${call.name} ${JSON.stringify(call.arguments).slice(0, 200)}`);
  const done = turn.events.find((event) => event.type === "done");
  const answer = done?.type === "done" ? done.response : "(the turn did not finish)";
  return [
    `THE AGENT: ${agent.name}, ${agent.title}. Role: ${agent.persona?.role ?? "-"}. Communication style: ${agent.persona?.communication_style ?? "-"}.`,
    `WHAT THE STEP IS FOR: ${step.intent}`,
    `THE USER SAID: ${step.message}`,
    `TOOLS THE AGENT CALLED:\n${calls.length ? calls.join("\n") : "(none)"}`,
    `THE AGENT ANSWERED:\n${answer.slice(0, 6000)}`,
  ].join("\n\n");
}

/** The judge's two scores for one step. */
export async function judgeStep(settings: JudgeSettings, agent: AgentDetail, step: JourneyStep, turn: TurnRecord): Promise<JudgedResult[]> {
  try {
    const response = await fetch(`${settings.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({
        model: settings.model,
        temperature: 0,
        messages: [
          { role: "system", content: judgeRubric },
          { role: "user", content: judgePrompt(agent, step, turn) },
        ],
      }),
      signal: AbortSignal.timeout(300_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
    const body = (await response.json()) as { choices?: Array<{ message?: { content?: string | null } }> };
    return parseVerdict(body.choices?.[0]?.message?.content ?? "");
  } catch (error) {
    const reason = `the judge failed: ${error instanceof Error ? error.message : String(error)}`;
    return (["judge.persona", "judge.intent"] as const).map((check) => ({ check, outcome: "error", reason }));
  }
}

/** The judge's JSON verdict (the first `{…}` of its answer), each score checked. */
export function parseVerdict(text: string): JudgedResult[] {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  let verdict: Record<string, unknown> = {};
  try {
    verdict = json ? (JSON.parse(json) as Record<string, unknown>) : {};
  } catch {
    verdict = {};
  }
  const reason = typeof verdict["reason"] === "string" ? verdict["reason"] : "";
  return (["persona", "intent"] as const).map((key): JudgedResult => {
    const score = verdict[key];
    const check: JudgedCheck = `judge.${key}`;
    if (typeof score !== "number" || !Number.isInteger(score) || score < 1 || score > 5) {
      return { check, outcome: "error", reason: `no ${key} score from 1 to 5 in the judge's answer: ${text.slice(0, 200)}` };
    }
    return { check, score, outcome: score >= judgePassScore ? "pass" : "fail", reason };
  });
}
