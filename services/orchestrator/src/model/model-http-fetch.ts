import { Agent, fetch as undiciFetch } from "undici";
import type { SilenceLimits } from "./silence-limited-fetch.js";

/**
 * The HTTP client of every model call: undici's own `fetch` with an `Agent` whose timers sit just past the silence
 * limits (silence-limited-fetch.ts), which end a call first and with a clear error. Node's built-in fetch gives up
 * on response headers after 300 s and on a pause in the body after 300 s, which a slow local model reaches before
 * its first token. The npm `undici` is used with its own `fetch`: an `Agent` of another undici version than the one
 * Node bundles cannot be handed to Node's fetch.
 */
export function modelHttpFetch(limits: SilenceLimits): typeof fetch {
  const margin = 1_000;
  const dispatcher = new Agent({
    headersTimeout: limits.firstByteMs + margin,
    bodyTimeout: Math.max(limits.firstByteMs, limits.idleMs) + margin,
  });
  // undici's Request and Response are the ones Node's fetch is built from; only their TypeScript types differ
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as typeof fetch;
}
