/**
 * A `fetch` for the openai client that drops a `retry-after` (or `retry-after-ms`) longer than `maxMs`
 * from failed responses. The client honours those headers with no upper bound (openai@6 would sleep an
 * hour on `retry-after: 3600`); without them it uses its own short backoff, so a turn fails with a rate
 * limit error in seconds instead of hanging. The client stays the only retry layer.
 */
export function cappedRetryAfterFetch(maxMs: number, baseFetch: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok || !tooLong(response.headers, maxMs)) return response;
    const headers = new Headers(response.headers);
    headers.delete("retry-after");
    headers.delete("retry-after-ms");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

function tooLong(headers: Headers, maxMs: number): boolean {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null) return !(Number(milliseconds) <= maxMs);
  const value = headers.get("retry-after");
  if (value === null) return false;
  const seconds = Number(value);
  const wait = Number.isNaN(seconds) ? Date.parse(value) - Date.now() : seconds * 1000;
  return !(wait <= maxMs);
}
