import { AppError, readObjectChunks } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { JetStreamManager, ObjectStore } from "nats";
import type { GatewayContext } from "../gateway-context.js";

/**
 * Reads file contents from the `file_contents` Object Store by sha256, chunk by chunk as they are asked for
 * (an export or a download written to a slow client never holds a large file in memory). The gateway may read
 * that store, never write it.
 */
export class ContentReader {
  private opened: Promise<{ store: ObjectStore; manager: JetStreamManager }> | undefined;

  constructor(private readonly context: Pick<GatewayContext, "connection" | "subjectPrefix">) {}

  /** The chunks of the content named `sha256`. */
  async *chunks(sha256: string): AsyncGenerator<Uint8Array> {
    const { store, manager } = await this.open();
    const info = await store.info(sha256);
    if (!info || info.deleted) throw new AppError("INTERNAL", "A file's content is missing from the store");
    yield* readObjectChunks(manager, jetStreamNames(this.context.subjectPrefix).fileContentsStore, info);
  }

  private open(): Promise<{ store: ObjectStore; manager: JetStreamManager }> {
    const js = this.context.connection.jetstream({ checkAPI: false });
    this.opened ??= Promise.all([js.views.os(jetStreamNames(this.context.subjectPrefix).fileContentsStore), js.jetstreamManager(false)])
      .then(([store, manager]) => ({ store, manager }))
      .catch((error: unknown) => {
        this.opened = undefined;
        throw new AppError("SERVICE_UNAVAILABLE", "File contents are not available yet: no tool-runner has set up the store", { cause: error });
      });
    return this.opened;
  }
}
