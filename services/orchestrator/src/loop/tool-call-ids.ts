import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { StreamedToolCall } from "./tool-call-accumulator.js";

/**
 * An id the model sends that is kept as it is: printable ASCII without spaces, short enough that the call's
 * idempotency key (`<run id>:<call id>`, at most 256 characters) and a subagent's parent call id stay valid.
 */
const keptIdPattern = /^[\x21-\x7e]{1,128}$/;

/**
 * Tool-call ids unique within a conversation (docs/security.md case 44). The model's id names a call to the
 * tool-runner (its idempotency key is the run id plus the call id) and pairs the call with its result, so a
 * model that sends no id, an empty or unusable one, or one already used (in this answer, earlier in the
 * turn, or earlier in the conversation) gets a fresh `call_<run>_<n>` from the system, and the call runs
 * under it. The renamed id is the one stored in the assistant message and in its tool result, so the model
 * sees one consistent conversation.
 */
export class ToolCallIds {
  private readonly used = new Set<string>();
  private readonly prefix: string;
  private counter = 0;

  constructor(runId: string, conversation: readonly ChatCompletionMessageParam[]) {
    this.prefix = `call_${runId.replace(/[^A-Za-z0-9_-]/g, "_")}_`;
    for (const message of conversation) {
      if (message.role === "tool") this.used.add(message.tool_call_id);
      else if (message.role === "assistant") for (const call of message.tool_calls ?? []) this.used.add(call.id);
    }
  }

  /** The calls of one answer, each with an id no other call of the conversation has. */
  assign(calls: readonly StreamedToolCall[]): StreamedToolCall[] {
    return calls.map((call) => {
      const id = keptIdPattern.test(call.id) && !this.used.has(call.id) ? call.id : this.fresh();
      this.used.add(id);
      return id === call.id ? call : { ...call, id };
    });
  }

  private fresh(): string {
    let id: string;
    do id = `${this.prefix}${++this.counter}`;
    while (this.used.has(id));
    return id;
  }
}
