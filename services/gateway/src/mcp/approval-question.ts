import type { ElicitRequestFormParams, ElicitResult, PrimitiveSchemaDefinition } from "@modelcontextprotocol/sdk/types.js";
import { maxDecisionMessageChars, type ApprovalDecisionBody, type PendingCall } from "@agent-orchestrator/shared/wire";

/**
 * A tool call waiting for a decision as an MCP elicitation form, and the user's answer as a decision
 * (docs/openai-api.md "Approvals through elicitation"). A form holds only flat fields of strings, numbers and booleans,
 * so the arguments the user may change are the call's top-level values of those kinds, one field each, filled with the
 * model's value; anything nested stays as the model sent it, and a call whose arguments came cut (`arguments_truncated`)
 * offers none, since a field would hold the cut value.
 */

/** The most of the arguments' JSON the question's text shows. */
const shownArgumentsChars = 4_000;
const argumentField = (name: string) => `arg_${name}`;

/** What the user's answer comes to: a decision; none (they dismissed the form); or one to ask again, saying why. */
export type ApprovalAnswer = { decided: ApprovalDecisionBody } | { undecided: true } | { invalid: string };

type Editable = string | number | boolean;

/** The form asking about `call`; `note` first when asking again (why the last answer was not taken). */
export function approvalQuestion(call: PendingCall, note?: string): ElicitRequestFormParams {
  const editable = editableArguments(call);
  const shown = JSON.stringify(call.arguments, null, 2);
  const message = [
    ...(note ? [note, ""] : []),
    `The agent wants to run ${call.tool}, which waits for your decision: ${call.reason.replace(/\.$/, "")}.`,
    "",
    `Arguments${call.arguments_truncated ? " (long values cut)" : ""}:`,
    shown.length > shownArgumentsChars ? `${shown.slice(0, shownArgumentsChars)}…` : shown,
    "",
    `approve runs it${editable.length > 0 ? " (change a value below to run it with yours; a field left empty keeps the agent's)" : ""}; reject does not, and the agent reads your message. The call waits until ${call.expires_at}.`,
  ].join("\n");
  const properties: Record<string, PrimitiveSchemaDefinition> = {
    decision: { type: "string", title: "Decision", description: "approve: run the call; reject: do not run it", enum: ["approve", "reject"] },
    message: { type: "string", title: "Message to the agent", description: "optional; with reject, say why", maxLength: maxDecisionMessageChars },
  };
  for (const [name, value] of editable) properties[argumentField(name)] = fieldFor(name, value);
  // no `mode`: a client of 2025-06-18 knows only forms, and one of 2025-11-25 takes a missing mode as a form
  return { message, requestedSchema: { type: "object", properties, required: ["decision"] } };
}

/** The decision in the user's answer to approvalQuestion(call): decline rejects, cancel decides nothing. */
export function approvalAnswer(call: PendingCall, result: ElicitResult): ApprovalAnswer {
  if (result.action === "decline") return { decided: { decision: "reject" } };
  if (result.action === "cancel") return { undecided: true };
  const content = result.content ?? {};
  const decision = content["decision"];
  if (decision !== "approve" && decision !== "reject") return { invalid: "Choose approve or reject." };
  const given = content["message"];
  if (given !== undefined && typeof given !== "string") return { invalid: "The message must be text." };
  const message = given?.trim() ?? "";
  if (message.length > maxDecisionMessageChars) return { invalid: `The message may have at most ${maxDecisionMessageChars} characters.` };
  const withMessage = message === "" ? {} : { message };
  if (decision === "reject") return { decided: { decision, ...withMessage } };
  const changed: Record<string, Editable> = {};
  for (const [name, value] of editableArguments(call)) {
    const field = content[argumentField(name)];
    // a client that fills no defaults sends an untouched field empty
    if (field === undefined || field === "") continue;
    if (typeof field !== typeof value) return { invalid: `${name} must be a ${typeof value}.` };
    if (field !== value) changed[name] = field as Editable;
  }
  const edited = Object.keys(changed).length > 0 ? { arguments: { ...call.arguments, ...changed } } : {};
  return { decided: { decision, ...edited, ...withMessage } };
}

function editableArguments(call: PendingCall): Array<[string, Editable]> {
  if (call.arguments_truncated) return [];
  return Object.entries(call.arguments).filter((entry): entry is [string, Editable] => ["string", "number", "boolean"].includes(typeof entry[1]));
}

function fieldFor(name: string, value: Editable): PrimitiveSchemaDefinition {
  const description = "the agent's value; change it to run the call with yours";
  if (typeof value === "boolean") return { type: "boolean", title: name, description, default: value };
  if (typeof value === "number") return { type: Number.isInteger(value) ? "integer" : "number", title: name, description, default: value };
  return { type: "string", title: name, description, default: value };
}
