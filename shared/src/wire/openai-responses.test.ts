import { describe, expect, it } from "vitest";
import { firstIssue } from "../runtime/zod-issue.js";
import { ResponseCreateRequest } from "./openai-responses.js";

/** The first problem with `body` as the client reads it, or undefined when it is accepted. */
function problem(body: Record<string, unknown>): string | undefined {
  const parsed = ResponseCreateRequest.safeParse({ model: "idea-coach", input: "hi", ...body });
  return parsed.success ? undefined : firstIssue(parsed.error, "body");
}

describe("ResponseCreateRequest", () => {
  it("accepts what the openai SDK and the Agents SDK send for an agent without tools", () => {
    expect(problem({ instructions: "Be brief.", tools: [], include: [], stream: true, store: true, temperature: 0.2 })).toBeUndefined();
    expect(problem({ input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "hello", annotations: [] }] }] })).toBeUndefined();
  });

  it("refuses a request's own tools, naming why", () => {
    expect(problem({ tools: [{ type: "function", name: "lookup", parameters: {} }] })).toMatch(/^tools: the agent's own tools run on this server/);
  });

  it("refuses items and parts it cannot run, naming what it takes instead", () => {
    expect(problem({ input: [{ type: "function_call_output", call_id: "1", output: "x" }] })).toMatch(/input\.0\.type.*"function_call_output".*send messages/);
    expect(problem({ input: [{ role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] }] })).toMatch(/"input_image".*"input_text" and "input_file"/);
  });

  it("refuses structured output and conversations, which it cannot honour", () => {
    expect(problem({ text: { format: { type: "json_schema", name: "x", schema: {} } } })).toMatch(/structured output/);
    expect(problem({ text: { format: { type: "text" } } })).toBeUndefined();
    expect(problem({ conversation: "conv_1" })).toMatch(/previous_response_id/);
  });

  it("takes only a response id as previous_response_id", () => {
    expect(problem({ previous_response_id: "resp_abc-123" })).toBeUndefined();
    expect(problem({ previous_response_id: "resp_a.b" })).toMatch(/not a response id/);
  });
});
