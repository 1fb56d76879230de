/**
 * LangChain's `ChatOpenAI` against `/v1` (docs/openai-api.md "Clients"): with `useResponsesApi` an invoke, a
 * stream and a follow-up with `previous_response_id` run the agent on the Responses API; without it an invoke on
 * chat completions. Real processes, a private nats-server, the scripted model.
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const token = "alice-token-1111";
let system: TestSystem;

/** Echoes the last line the user wrote (a new chat's first message may carry the client's instructions above it). */
function respond(request: ChatRequestBody): ScriptedTurn {
  const said = withoutSystemNote(String(lastMessage(request)?.content ?? ""));
  return { text: `echo: ${said.split("\n").at(-1) ?? ""}` };
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { AUTH_TOKENS: `alice:${token}`, HOST: "127.0.0.1" } });
}, 60_000);

afterAll(() => system?.stop());

/** A LangChain chat model whose model is the agent `idea-coach` of this server. */
function chatModel(useResponsesApi: boolean): ChatOpenAI {
  return new ChatOpenAI({ model: "idea-coach", apiKey: token, useResponsesApi, maxRetries: 0, configuration: { baseURL: `${system.url}/v1` } });
}

/** The texts of the user messages the model received last, without the note of the day. */
function lastUserMessages(): string[] {
  const seen = system.model.requests.at(-1)?.body;
  return (seen?.messages ?? []).filter((message) => message.role === "user").map((message) => withoutSystemNote(String(message.content ?? "")));
}

describe("LangChain ChatOpenAI with useResponsesApi", () => {
  it("invokes the agent, and a follow-up with previous_response_id continues the same chat", async () => {
    const model = chatModel(true);
    const first = await model.invoke([new SystemMessage("Be brief."), new HumanMessage("langchain first")]);
    expect(first.text).toBe("echo: langchain first");
    expect(first.id).toMatch(/^resp_/);
    expect(first.response_metadata).toMatchObject({ id: first.id, model: "idea-coach", status: "completed" });
    expect(first.usage_metadata?.total_tokens).toBeGreaterThan(0);

    const second = await model.invoke("langchain second", { previous_response_id: first.id });
    expect(second.text).toBe("echo: langchain second");
    expect(lastUserMessages()).toEqual([expect.stringMatching(/Be brief\.[\s\S]*langchain first$/), "langchain second"]);
  });

  it("streams the agent's answer, and a streamed follow-up continues the same chat", async () => {
    const model = chatModel(true);
    const chunks = [];
    for await (const chunk of await model.stream("langchain streamed")) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text).join("")).toBe("echo: langchain streamed");
    const id = chunks.map((chunk) => chunk.response_metadata["id"]).find((value) => typeof value === "string");
    expect(id).toMatch(/^resp_/);

    let followUp = "";
    for await (const chunk of await model.stream("langchain streamed again", { previous_response_id: String(id) })) followUp += chunk.text;
    expect(followUp).toBe("echo: langchain streamed again");
    expect(lastUserMessages()).toEqual([expect.stringMatching(/langchain streamed$/), "langchain streamed again"]);
  });
});

describe("LangChain ChatOpenAI on chat completions", () => {
  it("invokes the agent", async () => {
    const answer = await chatModel(false).invoke([new HumanMessage("langchain completions")]);
    expect(answer.text).toBe("echo: langchain completions");
    expect(answer.response_metadata).toMatchObject({ model_name: "idea-coach", finish_reason: "stop" });
  });
});
