import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { StoredObjects } from "./stored-objects.js";

/**
 * Reads file contents from the `file_contents` Object Store by sha256, chunk by chunk as they are asked for
 * (an export or a download written to a slow client never holds a large file in memory). The gateway may read
 * that store, never write it.
 */
export class ContentReader extends StoredObjects {
  constructor(context: Pick<GatewayContext, "connection" | "subjectPrefix">) {
    super(context, jetStreamNames(context.subjectPrefix).fileContentsStore, {
      missing: "A file's content is missing from the store",
      unavailable: "File contents are not available yet: no tool-runner has set up the store",
    });
  }
}
