/** Bytes sent so far of a request body, and its total. */
export type UploadProgress = (loaded: number, total: number) => void;

/**
 * `fetch`, done with XMLHttpRequest: the one browser API that reports how much of a request body has been
 * sent (fetch reports nothing for uploads). Answers like fetch: a Response for any status, a TypeError when
 * no answer came, an AbortError when `init.signal` aborted it.
 */
export function xhrSend(url: string, init: RequestInit, onProgress: UploadProgress): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(init.method ?? "GET", url);
    new Headers(init.headers).forEach((value, name) => request.setRequestHeader(name, value));
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    request.addEventListener("load", () => {
      const headers = new Headers();
      for (const line of request.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      // a Response may not carry a body with these statuses
      const body = [101, 204, 205, 304].includes(request.status) ? null : request.responseText;
      resolve(new Response(body, { status: request.status, statusText: request.statusText, headers }));
    });
    request.addEventListener("error", () => reject(new TypeError("The upload failed: the connection was lost")));
    request.addEventListener("abort", () => reject(new DOMException("The upload was stopped", "AbortError")));
    init.signal?.addEventListener("abort", () => request.abort(), { once: true });
    request.send((init.body ?? null) as XMLHttpRequestBodyInit | null);
  });
}
