/**
 * Fault 4 (docs/security.md case 50): the model server goes down in the middle of a streamed answer and comes
 * back later. The turn must end with a clear error event (never a silent replay of what was streamed),
 * a chat while it is down must fail clearly, and the session must stay usable: once the model is back, the
 * next turn works and sees the earlier conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionGetReply } from "@agent-orchestrator/shared/wire";
import { startHttpModel, type ChatRequestBody, type HttpModel, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote, withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { finalEvent, postChat, streamChat } from "@agent-orchestrator/testing/faults/chat-client";
import { startFaultSystem, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";

function respond(request: ChatRequestBody): ScriptedTurn {
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  // a slow stream: the outage lands between its pieces
  if (said.startsWith("long")) return { text: "Once upon a time, far away, there was a model that answered slowly.", chunkDelayMs: 500 };
  return { text: `echo: ${said}` };
}

let system: FaultSystem;
/** the scripted model while it is up: the cases take it down and bring it back on its port, each as it needs */
let model: HttpModel | undefined;
let sessionId: string;

async function modelDown(): Promise<void> {
  await model?.close();
  model = undefined;
}

async function modelUp(): Promise<HttpModel> {
  model ??= await startHttpModel({ port: Number(new URL(system.model.url).port), responder: respond });
  return model;
}

beforeAll(async () => {
  // one retry by the openai client keeps the "model down" phase short
  system = await startFaultSystem({ responder: respond, envFor: { orchestrator: { MODEL_MAX_RETRIES: "1" } } });
  model = system.model;
  const first = await postChat(system.gatewayUrls[0] as string, { agent_id: "idea-coach", message: "hello" });
  sessionId = String(first.body["session_id"]);
}, 60_000);

afterAll(async () => {
  if (model !== system?.model) await model?.close();
  await system?.stop();
});

describe("the model server goes down mid-stream and comes back", () => {
  it("ends the interrupted turn with a clear error event after the streamed text, not a replay", async () => {
    const gateway = system.gatewayUrls[0] as string;
    await modelUp();
    const turn = await streamChat(gateway, { agent_id: "idea-coach", message: "long story please", session_id: sessionId });
    await turn.until((event) => event.type === "delta");
    await modelDown();
    const events = await turn.done;
    const final = finalEvent(events);
    // UPSTREAM_INTERRUPTED ("cut off") is the cut seen as such, not a model or idle timeout running out
    expect(final).toMatchObject({ type: "error", error: { code: "UPSTREAM_INTERRUPTED", message: expect.stringContaining("cut off") } });
    // what reached the client before the cut is not sent again
    const text = events.flatMap((event) => (event.type === "delta" ? [event.text] : [])).join("");
    expect("Once upon a time, far away, there was a model that answered slowly.".startsWith(text)).toBe(true);
  });

  it("fails a chat while the model is down with MODEL_UNAVAILABLE, not a busy session", async () => {
    await modelDown();
    const answer = await postChat(system.gatewayUrls[0] as string, { agent_id: "idea-coach", message: "are you there", session_id: sessionId });
    expect(answer.body).toMatchObject({ success: false, error: { code: "MODEL_UNAVAILABLE", message: "The model could not be reached" } });
  });

  it("keeps the session usable: once the model is back, the next turn works and sees the conversation", async () => {
    const revived = await modelUp();
    const answer = await postChat(system.gatewayUrls[0] as string, { agent_id: "idea-coach", message: "hello again", session_id: sessionId });
    expect(answer.body).toMatchObject({ success: true, session_id: sessionId, response: "echo: hello again" });
    // the system's note of the day ends the first message
    const seen = revived.requests.at(-1)?.body.messages.map((message) => message.content);
    expect(seen).toEqual(expect.arrayContaining([expect.stringMatching(endsWithDateNote("hello")), "echo: hello", "hello again"]));
    const session = SessionGetReply.parse(await (await fetch(`${system.gatewayUrls[0]}/api/sessions/${sessionId}`)).json());
    expect(session).toMatchObject({ success: true, session: { status: "completed" } });
  });
});
