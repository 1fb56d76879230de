/** A tool call as it arrived in full from a stream; `arguments` is still the raw JSON text. */
export interface StreamedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The part of an OpenAI stream chunk's `delta.tool_calls[]` entry that we read. */
export interface ToolCallDelta {
  index: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/**
 * Collects streamed tool-call fragments into whole calls. OpenAI sends the id and name in the first
 * fragment of each index and concatenates arguments; some compatible servers reuse index 0 for every
 * call and tell them apart only by id, so a new id on a used index starts a new call.
 */
export class ToolCallAccumulator {
  private readonly calls: StreamedToolCall[] = [];
  private readonly slotByIndex = new Map<number, number>();

  add(deltas: readonly ToolCallDelta[]): void {
    for (const delta of deltas) {
      const slot = this.slotByIndex.get(delta.index);
      let call = slot === undefined ? undefined : this.calls[slot];
      if (call === undefined || (delta.id && call.id && delta.id !== call.id)) {
        call = { id: "", name: "", arguments: "" };
        this.slotByIndex.set(delta.index, this.calls.push(call) - 1);
      }
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name += delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
    }
  }

  /** How many calls have started so far. */
  get count(): number {
    return this.calls.length;
  }

  /** The calls in the order the model started them. */
  result(): StreamedToolCall[] {
    return this.calls.map((call) => ({ ...call }));
  }
}
