import { randomUUID } from "node:crypto";
import { InitializeRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * The `Mcp-Session-Id` this stateless server gives at `initialize` (docs/openai-api.md "Approvals through
 * elicitation"). It holds no session: it carries what the client declared that a later request needs, so any replica
 * reads it from the header the client sends with every request, and nothing is stored anywhere. Today that is one
 * thing: whether the client takes form elicitation, which lets a `chat` call ask the user about a tool call waiting for
 * a decision. The C# SDK's stateless mode carries the client's capabilities in its session id for the same reason.
 *
 * A client could send a made-up id; it only tells about itself: one claiming elicitation it lacks leaves its own call
 * waiting until it answers, goes away or the call expires, and the call still never runs without a decision.
 */
const version = "ao1";
const canElicitFlag = "elicit";
const sessionIdPattern = new RegExp(`^${version}\\.(${canElicitFlag}|plain)\\.[0-9a-f-]{36}$`);

/** The session id for an `initialize` request's body: what its client declared, and a random part so each is new. */
export function sessionIdFor(initialize: unknown): string {
  return `${version}.${declaresFormElicitation(initialize) ? canElicitFlag : "plain"}.${randomUUID()}`;
}

/** Whether the client that sent `header` (its `Mcp-Session-Id`) declared form elicitation at `initialize`; no id, or one this server did not make, says no. */
export function canElicit(header: string | string[] | undefined): boolean {
  const match = typeof header === "string" ? sessionIdPattern.exec(header) : null;
  return match?.[1] === canElicitFlag;
}

/**
 * Form elicitation, by the 2025-11-25 rule: `elicitation.form` declared, or `elicitation` declared with neither `form`
 * nor `url` (what clients of 2025-06-18 send). URL mode alone is not enough: the question is asked as a form.
 */
function declaresFormElicitation(initialize: unknown): boolean {
  const parsed = InitializeRequestSchema.safeParse(initialize);
  const elicitation = parsed.success ? parsed.data.params.capabilities.elicitation : undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}
