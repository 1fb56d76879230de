import { AppError } from "@agent-orchestrator/shared/runtime";

/** How long a model call may be silent: before the first byte of its answer, and between bytes after it. */
export interface SilenceLimits {
  firstByteMs: number;
  idleMs: number;
}

const silenceStop = Symbol("silence stop");

/** The init of a call's fetch carries how the silence limits end that call; spread into it (or the openai client's `fetchOptions`). */
export interface WithSilenceStop {
  [silenceStop]: (error: AppError) => void;
}

/** What a call's fetch init carries so that its silence limits end it with `stop` (silenceLimitedFetch). */
export const withSilenceStop = (stop: (error: AppError) => void): WithSilenceStop => ({ [silenceStop]: stop });

/**
 * A `fetch` for model calls that ends each by silence, never by its length (docs/models.md "Timeouts"): no byte of
 * the answer for `firstByteMs` after the request is sent (a local model reads the whole prompt before its first
 * token; the response headers do not count, as some servers send them at once), or for `idleMs` between bytes
 * once it has begun. Bytes are counted before the SSE parser sees them, so a server's keep-alive comments are signs
 * of life too. When a limit passes, the call's `stop` (its init's, withSilenceStop: one fetch serves a route's every
 * call, so the openai client is not built again per call) gets a MODEL_TIMEOUT error, once; the caller aborts the call with it
 * (a fetch failure instead would be retried by the openai client, which would wait as long again).
 * Home-made: the openai client's own `timeout` ends when the response headers come, and fetch measures no silence.
 */
export function silenceLimitedFetch(limits: SilenceLimits, baseFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    const stop = (init as WithSilenceStop | undefined)?.[silenceStop];
    if (!stop) throw new AppError("INTERNAL", "A model call was made without the stop its silence limits end it with");
    let timer: NodeJS.Timeout | undefined;
    const disarm = () => clearTimeout(timer);
    const arm = (ms: number, error: () => AppError) => {
      disarm();
      timer = setTimeout(() => stop(error()), ms);
    };
    arm(limits.firstByteMs, () => firstByteTimeout(limits.firstByteMs));
    // the call ends (answered, failed, or stopped by its caller): no timer outlives it
    init?.signal?.addEventListener("abort", disarm, { once: true });
    let response: Response;
    try {
      response = await baseFetch(input, init);
    } catch (error) {
      disarm();
      throw error;
    }
    // a refusal (its body an error, read or dropped by the client, which may then retry) is not watched: a timer
    // left from it would stop the next attempt
    if (!response.ok || !response.body) {
      disarm();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            disarm();
            controller.close();
            return;
          }
          if (value.byteLength > 0) arm(limits.idleMs, () => idleTimeout(limits.idleMs));
          controller.enqueue(value);
        } catch (error) {
          disarm();
          controller.error(error);
        }
      },
      // the client stops reading (it has what it wanted, or the call was stopped)
      cancel(reason) {
        disarm();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

const firstByteTimeout = (ms: number) =>
  new AppError("MODEL_TIMEOUT", `The model sent nothing for ${seconds(ms)} after the request (MODEL_FIRST_BYTE_TIMEOUT_MS) and was stopped`, {
    detail: { limit: "first_byte", ms },
  });

const idleTimeout = (ms: number) =>
  new AppError("MODEL_TIMEOUT", `The model's answer stopped for ${seconds(ms)} (MODEL_IDLE_TIMEOUT_MS); it was cut there`, {
    detail: { limit: "idle", ms },
  });
