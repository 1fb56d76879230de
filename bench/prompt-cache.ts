/**
 * Measure 17: prompts a provider can cache, and what an agent costs at activation, on BMAD 6.12 as its installer
 * lays it out (the install the tests use, test/support/bmad-install.ts). Through the whole system and a scripted
 * model of its own, tokens counted with o200k_base (support/prompt-tokens.ts):
 *
 * - a 10-turn chat with the analyst (greeting, two workflows started with load_skill, a file read, answers): for
 *   each model call, the share of its prompt tokens that repeat the previous call's prompt from its start, the
 *   part a provider's prompt cache (OpenAI, vLLM, llama.cpp) serves without reading it again;
 * - for each agent the install ships, the prompt tokens of its first call (system prompt, tool list, "hello"), and
 *   of the first call of each of its menu's workflows (the call that reads the workflow's skill after load_skill);
 * - per member (prompt-cache-members.ts): whether one member's first call is the same bytes in two chats, and how
 *   much of two members' first calls (different settings) is the same from the start.
 */
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startHttpModel, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import type { BenchContext } from "./support/bench-context.js";
import { chatJson } from "./support/gateway-client.js";
import type { MeasureReport, MeasureRow } from "./support/measure-report.js";
import { commonPrefixTokens, promptTokens, serializedPrompt, type PromptTokens } from "./support/prompt-tokens.js";
import { measureMemberPrompts } from "./prompt-cache-members.js";

const release = { version: "6.12.0", tool: "claude-code" };
const chatAgent = "bmm/analyst";
/** The 10 user messages of the chat (verbs of `respond`). */
const chatScript = [
  "hello",
  "load-skill bmad-product-brief",
  "answer The users are product teams of five to fifty people.",
  "read {project-root}/_bmad/bmm/config.yaml",
  "answer Keep the brief short.",
  "load-skill bmad-prd",
  "answer The first release is a web app.",
  "read {project-root}/_bmad/bmm/module-help.csv",
  "answer Go on.",
  "answer Thank you.",
];

/**
 * The model's side: the latest user message says what to do (`load-skill <name>`, `read <path>`, anything else:
 * answer); after the tool result it answers.
 */
function respond(request: ChatRequestBody): ScriptedTurn {
  const lastUser = request.messages.findLastIndex((message) => message.role === "user");
  const said = withoutSystemNote(String(request.messages[lastUser]?.content ?? ""));
  const answered = request.messages.slice(lastUser + 1).some((message) => message.role === "tool");
  const [verb = "", argument = ""] = said.split(/ (.*)/s, 2);
  if (!answered && verb === "load-skill") return { toolCalls: [{ name: "load_skill", arguments: { name: argument } }] };
  if (!answered && verb === "read") return { toolCalls: [{ name: "read_file", arguments: { file_path: argument } }] };
  return { text: answered ? "I have read it; here is the first question of this step." : "Understood." };
}

interface AgentFigures {
  agent: string;
  first: PromptTokens;
  workflows: Array<{ code: string; skill: string; tokens: PromptTokens }>;
}

export async function measurePromptCache(context: BenchContext): Promise<MeasureReport> {
  const root = await ensureBmadInstall(release);
  const model = await startHttpModel({ responder: respond });
  try {
    const system = await context.startSystem("bench17.", "in-process", { BMAD_ROOT: root, OPENAI_BASE_URL: model.url });
    const chat = (agent_id: string, message: string, session_id?: string) =>
      chatJson(system.gatewayUrl, { agent_id, message, ...(session_id ? { session_id } : {}) });

    // the 10-turn chat: each call against the one before it
    let sessionId: string | undefined;
    for (const message of chatScript) sessionId = (await chat(chatAgent, message, sessionId)).session_id;
    const prompts = model.requests.map((request) => ({ tokens: serializedPrompt(request.body), count: promptTokens(request.body) }));
    const shares = prompts.slice(1).map((prompt, index) => commonPrefixTokens(prompts[index]?.tokens ?? [], prompt.tokens) / prompt.tokens.length);
    const prefixTokens = (prompts[0]?.count.system ?? 0) + (prompts[0]?.count.tools ?? 0);
    // another chat with the same agent: its first call against the first chat's
    model.requests.length = 0;
    await chat(chatAgent, chatScript[0]!);
    const otherChat = serializedPrompt(model.requests[0]!.body);
    const acrossChats = commonPrefixTokens(prompts[0]?.tokens ?? [], otherChat) / otherChat.length;

    // each agent's first call and its workflows' first calls
    const listed = (await (await fetch(`${system.gatewayUrl}/api/agents`)).json()) as { agents: Array<{ id: string }> };
    const figures: AgentFigures[] = [];
    for (const { id } of listed.agents.sort((a, b) => a.id.localeCompare(b.id))) {
      model.requests.length = 0;
      await chat(id, "hello");
      const first = promptTokens(model.requests[0]!.body);
      const detail = (await (await fetch(`${system.gatewayUrl}/api/agents/${id}`)).json()) as { agent: { menu: Array<{ trigger: string; skill?: string }> } };
      const workflows: AgentFigures["workflows"] = [];
      for (const item of detail.agent.menu) {
        if (!item.skill) continue;
        model.requests.length = 0;
        await chat(id, `load-skill ${item.skill}`);
        workflows.push({ code: item.trigger, skill: item.skill, tokens: promptTokens(model.requests[1]!.body) });
      }
      figures.push({ agent: id, first, workflows });
    }

    // per member, on a system that signs people in
    const members = await measureMemberPrompts(context, root, model, chatAgent);
    const sameForEach = members.sameAcrossChats.alice && members.sameAcrossChats.bob;
    const sharedShare = members.sharedPrefixTokens / Math.max(members.promptTokens.alice, members.promptTokens.bob);

    const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
    const sorted = [...shares].sort((a, b) => a - b);
    const prefixKept = prompts.slice(1).every((prompt, index) => commonPrefixTokens(prompts[index]?.tokens ?? [], prompt.tokens) >= prefixTokens);
    const rows: MeasureRow[] = [
      {
        label: `${chatAgent}, 10-turn chat (${prompts.length} model calls): share of each call's prompt tokens repeating the previous call's, min / median`,
        baseline: "—",
        system: `${percent(sorted[0] ?? 0)} / ${percent(sorted[Math.floor(sorted.length / 2)] ?? 0)}`,
        result: `system prompt and tools (${prefixTokens} tokens) repeated by every call: ${prefixKept ? "yes" : "no"}`,
        target: "the whole prefix repeated",
        met: prefixKept,
      },
      {
        label: `${chatAgent}: share of a second chat's first call repeating the first chat's first call`,
        baseline: "—",
        system: percent(acrossChats),
        result: percent(acrossChats),
      },
      {
        label: `${chatAgent}, per member (two members with different settings, two new chats each): first call the same bytes in both chats`,
        baseline: "—",
        system: `alice ${members.sameAcrossChats.alice ? "yes" : "no"}, bob ${members.sameAcrossChats.bob ? "yes" : "no"}`,
        result: sameForEach ? "yes" : "no",
        target: "yes",
        met: sameForEach,
      },
      {
        label: `${chatAgent}, per member: prefix shared by the two members' first calls, tokens and share of the prompt`,
        baseline: "—",
        system: `${members.sharedPrefixTokens} of ${members.promptTokens.alice} / ${members.promptTokens.bob}`,
        result: percent(sharedShare),
      },
      ...figures.map((figure): MeasureRow => {
        const largest = figure.workflows.reduce<AgentFigures["workflows"][number] | undefined>((top, workflow) => (!top || workflow.tokens.total > top.tokens.total ? workflow : top), undefined);
        return {
          label: `${figure.agent}: prompt tokens of the first call (system + tools + conversation) / of its largest workflow's first call`,
          baseline: "—",
          system: `${figure.first.total} (${figure.first.system} + ${figure.first.tools} + ${figure.first.conversation}) / ${largest ? `${largest.tokens.total} (${largest.skill})` : "no workflow"}`,
          result: `${figure.first.total}`,
        };
      }),
    ];
    return {
      id: 17,
      title: "prompt caching and activation cost",
      method:
        `BMAD ${release.version} installed for ${release.tool}, through the whole system (services in this process) and a scripted model; ` +
        "prompt tokens counted with o200k_base (gpt-tokenizer: 3 tokens per message and 3 to prime the answer, the tool list as its JSON). " +
        `The chat: ${chatScript.length} turns with ${chatAgent}; for each model call, the tokens its serialized prompt (tools, then messages) ` +
        "shares from the start with the previous call's, over its own tokens. The activation: each agent's first call on \"hello\" in a new chat, " +
        "and for each menu item with a skill, the call after load_skill in a new chat (the workflow's first step is read there). " +
        `Per member: a second system with AUTH_TOKENS; alice (user_name "Alice Liddell") and bob ("Bob Builder", German) each open two new chats with ${chatAgent} ` +
        "in one project they share; each chat's first call (tools and messages as sent) is compared with the member's other chat's, byte for byte, and with the other member's, token by token from the start.",
      rows,
      details: { release, chat: { agent: chatAgent, messages: chatScript, shares, prefixTokens, acrossChats, calls: prompts.map((prompt) => prompt.count) }, members, agents: figures },
      notes: [
        "A provider caches by prefix: what repeats the previous call from its first token is read from the cache (OpenAI bills it as cached input, at a discount).",
        "The first call of a workflow includes the skill's instructions as load_skill returned them; its later steps are read by the model file by file.",
      ],
    };
  } finally {
    await model.close();
  }
}
