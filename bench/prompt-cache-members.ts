/**
 * Measure 17's per-member part: BMAD's settings per member (docs/settings.md "Prompt caching") make an agent's
 * prompt differ per member, so a provider's cache must still serve one member's prompt across chats, and the part
 * that is the same for everyone must come first. Two members with different settings (a name each, one of them
 * German) chat with the same agent in the same project, two new chats each; their first calls are compared.
 */
import type { HttpModel } from "@agent-orchestrator/testing/http-model";
import type { BenchContext } from "./support/bench-context.js";
import { commonPrefixTokens, serializedPrompt } from "./support/prompt-tokens.js";

const tokens = { alice: "bench17-alice-token-0000", bob: "bench17-bob-token-11111" } as const;
type Member = keyof typeof tokens;
const memberSettings: Record<Member, unknown> = {
  alice: { bmad: { user_name: "Alice Liddell" } },
  bob: { bmad: { user_name: "Bob Builder", communication_language: "German" } },
};

export interface MemberPromptFigures {
  /** per member: whether the first calls of two new chats carried the same bytes (tools and messages) */
  sameAcrossChats: Record<Member, boolean>;
  /** the two members' first calls: the tokens they share from the start, and the tokens of each */
  sharedPrefixTokens: number;
  promptTokens: Record<Member, number>;
  /** what follows the shared prefix in alice's first call, to show where the members part */
  divergesAt: string;
}

export async function measureMemberPrompts(context: BenchContext, bmadRoot: string, model: HttpModel, agentId: string): Promise<MemberPromptFigures> {
  const system = await context.startSystem("bench17m.", "in-process", {
    BMAD_ROOT: bmadRoot,
    OPENAI_BASE_URL: model.url,
    AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","),
  });
  const call = async (member: Member, method: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${system.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens[member]}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path} failed (${response.status}): ${JSON.stringify(answer)}`);
    return answer;
  };
  // one project both members work in, so only the member differs
  const project = ((await call("alice", "POST", "/api/projects", { name: "Checkout redesign" }))["project"] as { id: string }).id;
  await call("alice", "PUT", `/api/projects/${project}/members/bob`, { role: "editor" });
  for (const member of Object.keys(tokens) as Member[]) await call(member, "PUT", "/api/me/settings", memberSettings[member]);

  /** The first model call of a new chat with the agent: its tools and messages as sent, and as tokens. */
  const firstCall = async (member: Member): Promise<{ bytes: string; tokens: number[] }> => {
    model.requests.length = 0;
    await call(member, "POST", "/api/chat", { agent_id: agentId, message: "hello", project_id: project });
    const body = model.requests[0]!.body;
    return { bytes: JSON.stringify({ tools: body.tools, messages: body.messages }), tokens: serializedPrompt(body) };
  };
  const [alice, aliceAgain, bob, bobAgain] = [await firstCall("alice"), await firstCall("alice"), await firstCall("bob"), await firstCall("bob")];

  let sharedChars = 0;
  while (sharedChars < alice.bytes.length && alice.bytes[sharedChars] === bob.bytes[sharedChars]) sharedChars++;
  return {
    sameAcrossChats: { alice: alice.bytes === aliceAgain.bytes, bob: bob.bytes === bobAgain.bytes },
    sharedPrefixTokens: commonPrefixTokens(alice.tokens, bob.tokens),
    promptTokens: { alice: alice.tokens.length, bob: bob.tokens.length },
    divergesAt: alice.bytes.slice(Math.max(0, sharedChars - 60), sharedChars + 60),
  };
}
