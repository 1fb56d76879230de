/**
 * What the user can do about an error, by code. The gateway's message says what happened; the hint says
 * what to try next. Codes without a hint are shown with their message alone.
 */
const hints: Record<string, string> = {
  MODEL_NOT_CONFIGURED:
    "The server has no language model to talk to. Whoever runs it sets OPENAI_API_KEY and LLM_MODEL (or OPENAI_BASE_URL for a local server such as Ollama) and restarts it.",
  MODEL_UNAVAILABLE: "The language model did not answer. Try again in a moment.",
  MODEL_RATE_LIMITED: "The language model is rate-limiting requests. Wait a little, then try again.",
  MODEL_TIMEOUT: "The language model took too long to answer. Try again, perhaps with a shorter request.",
  UPSTREAM_INTERRUPTED: "The model's answer was cut off. Send the message again.",
  TURN_TIMEOUT: "The turn ran out of time. Ask for a smaller step, or try again.",
  MAX_ITERATIONS: "The agent used too many steps without finishing. Ask for something smaller or more specific.",
  SESSION_BUSY: "This session is still working on the previous message. Wait for it to finish, or stop it.",
  APPROVAL_EXPIRED: "Nobody decided on the tool call in time, so the turn ended; what the agent wrote is kept. Send the message again to go on.",
  APPROVAL_DECIDED: "This call no longer waits: it was decided elsewhere, expired, or its chat was cancelled. The card shows how it ended.",
  SESSION_NOT_FOUND: "This session no longer exists. Start a new chat.",
  AGENT_NOT_FOUND: "This agent is not installed (any more). Pick another one.",
  AGENT_INIT_FAILED: "The agent could not start: one of its start-up files is missing or unreadable.",
  UNAUTHORIZED: "This server needs an access token. Enter the one you were given.",
  FORBIDDEN: "Your token does not allow this.",
  PAYLOAD_TOO_LARGE: "The message is too long. Shorten it and send it again.",
  RATE_LIMITED: "Too many requests. Wait a little, then try again.",
  BUDGET_EXCEEDED: "A spending budget is used up; the message says which and when it starts again. What the agent wrote so far is kept. A project's owner can raise its monthly budget.",
  SERVICE_UNAVAILABLE: "A part of the system is not running. Try again in a moment; if it persists, the server needs attention.",
  SERVICE_TIMEOUT: "A part of the system did not answer in time. Try again in a moment.",
  BUSY: "The system is busy. Try again in a moment.",
  NETWORK_ERROR: "The page could not reach the server. Check your connection, and that the server is running.",
  STREAM_ENDED: "The connection closed before the answer was complete. Reopen the session to see whether it finished.",
  BAD_RESPONSE: "The server sent an answer the page did not understand. Reload the page; if it persists, the server and page versions may differ.",
};

export const errorHint = (code: string): string | undefined => (Object.hasOwn(hints, code) ? hints[code] : undefined);
