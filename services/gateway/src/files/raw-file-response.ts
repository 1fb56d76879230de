import type { Response } from "express";
import { contentTypeFor } from "./content-type.js";

/**
 * Sends a stored file's text as the response body. A file a model or a member wrote is data: its type
 * comes from a short list no browser renders as a page, and even opened on its own it runs nothing and
 * submits nothing.
 */
export function sendRawFile(response: Response, path: string, content: string, truncated: boolean, headers: Record<string, string> = {}): void {
  response
    .status(200)
    .set({
      ...headers,
      "content-type": contentTypeFor(path),
      "x-content-truncated": String(truncated),
      "content-disposition": "inline",
      "content-security-policy": "default-src 'none'; form-action 'none'; frame-ancestors 'none'; sandbox",
    })
    .send(content);
}
