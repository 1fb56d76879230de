import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { toolDefinitionsForModel } from "@agent-orchestrator/shared/wire";

/** Runs one tool call of the model; the result is sent back as JSON. */
export type ExecuteTool = (name: string, args: unknown) => Promise<unknown>;

const tools = toolDefinitionsForModel();

/**
 * The least an agent loop can be with the openai client: stream the answer, gather tool-call fragments
 * by index, run the calls, append the results, call again. No validation, no limits, no events: the floor
 * against which the Agents SDK and our loop are both measured (measure 4). Sends the same request as our
 * loop (stream with usage, the same four tools).
 */
export async function runRawOpenAiLoop(client: OpenAI, model: string, systemPrompt: string, message: string, execute: ExecuteTool): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: systemPrompt },
    { role: "user", content: message },
  ];
  for (;;) {
    const stream = await client.chat.completions.create({ model, messages, tools, stream: true, stream_options: { include_usage: true } });
    let text = "";
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) text += delta.content;
      for (const fragment of delta?.tool_calls ?? []) {
        const call = (calls[fragment.index] ??= { id: "", name: "", arguments: "" });
        call.id ||= fragment.id ?? "";
        call.name ||= fragment.function?.name ?? "";
        call.arguments += fragment.function?.arguments ?? "";
      }
    }
    if (calls.length === 0) return text;
    messages.push({
      role: "assistant",
      content: text || null,
      tool_calls: calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })),
    });
    for (const call of calls) {
      const result = await execute(call.name, JSON.parse(call.arguments) as unknown);
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
}
