import type { Usage } from "@agent-orchestrator/shared/wire";

/** The JSON answer of `POST /api/chat`. */
export interface ChatAnswer {
  success: boolean;
  session_id: string;
  response: string;
  iterations: number;
  usage: Usage;
  error?: { code: string; message: string };
}

export interface ChatBody {
  agent_id: string;
  message: string;
  session_id?: string;
}

/** A chat turn answered as JSON: the HTTP status and the body, whatever they are. */
export async function postChat(gatewayUrl: string, body: ChatBody, signal?: AbortSignal): Promise<{ status: number; answer: ChatAnswer }> {
  const response = await fetch(`${gatewayUrl}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return { status: response.status, answer: (await response.json()) as ChatAnswer };
}

/** A chat turn answered as JSON; throws unless it succeeded, so a broken system cannot pass for a fast one. */
export async function chatJson(gatewayUrl: string, body: ChatBody, signal?: AbortSignal): Promise<ChatAnswer> {
  const { status, answer } = await postChat(gatewayUrl, body, signal);
  if (status !== 200 || !answer.success) throw new Error(`chat failed (${status}): ${JSON.stringify(answer.error ?? answer)}`);
  return answer;
}

/**
 * A chat turn streamed as SSE. Returns the milliseconds from sending the request to receiving the first
 * `delta` event (time to first token at the client), after reading the stream to its end so that the next
 * sample starts on an idle system.
 */
export async function chatFirstDeltaMs(gatewayUrl: string, body: ChatBody): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${gatewayUrl}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`chat failed (${response.status}): ${await response.text()}`);
  const decoder = new TextDecoder();
  let seen = "";
  let firstDelta: number | undefined;
  for await (const chunk of response.body) {
    seen += decoder.decode(chunk as Uint8Array, { stream: true });
    if (firstDelta === undefined && seen.includes("event: delta\n")) firstDelta = performance.now() - started;
  }
  if (firstDelta === undefined || !seen.includes("event: done\n")) throw new Error(`the stream had no delta or no done: ${seen.slice(-300)}`);
  return firstDelta;
}
