import { once } from "node:events";
import type { Response } from "express";
import type { GitBody } from "@agent-orchestrator/shared/wire";

/** Bodies the tool-runner staged in the uploads store for the gateway to stream, then remove (git/staged-responses.ts). */
export interface StagedBodies {
  chunks(name: string): AsyncGenerator<Uint8Array>;
  remove(name: string): Promise<void>;
}

/**
 * Writes a body from the tool-runner (a git response, a repository file's bytes): as it came in the reply, or chunk
 * by chunk from the uploads store at the client's pace with its length, then removes it, sent or abandoned. What to
 * do when the store fails midway is the caller's: the status is sent by then.
 */
export async function sendStagedBody(response: Response, body: GitBody, staged: StagedBodies): Promise<void> {
  if ("inline" in body) {
    response.end(Buffer.from(body.inline, "base64"));
    return;
  }
  try {
    response.set("content-length", String(body.bytes));
    for await (const chunk of staged.chunks(body.staged)) {
      if (response.destroyed) break;
      if (!response.write(chunk)) await Promise.race([once(response, "drain"), once(response, "close")]);
    }
    response.end();
  } finally {
    await staged.remove(body.staged);
  }
}
