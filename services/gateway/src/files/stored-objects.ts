import { AppError, readObjectChunks } from "@agent-orchestrator/shared/runtime";
import type { JetStreamManager, ObjectStore } from "nats";
import type { GatewayContext } from "../gateway-context.js";

/** What a reader of one store says when an object is missing, or the store is not there yet. */
export interface StoredObjectsWords {
  missing: string;
  unavailable: string;
}

/**
 * Objects of one Object Store the tool-runner makes, read chunk by chunk as they are asked for (a slow client never
 * makes the gateway hold a large object in memory). The store is bound on first use, and again after a failed bind.
 */
export class StoredObjects {
  private opened: Promise<{ store: ObjectStore; manager: JetStreamManager }> | undefined;

  constructor(
    private readonly context: Pick<GatewayContext, "connection">,
    private readonly storeName: string,
    private readonly words: StoredObjectsWords,
  ) {}

  /** The chunks of the object `name`. */
  async *chunks(name: string): AsyncGenerator<Uint8Array> {
    const { store, manager } = await this.open();
    const info = await store.info(name);
    if (!info || info.deleted) throw new AppError("INTERNAL", this.words.missing);
    yield* readObjectChunks(manager, this.storeName, info);
  }

  protected open(): Promise<{ store: ObjectStore; manager: JetStreamManager }> {
    const js = this.context.connection.jetstream({ checkAPI: false });
    this.opened ??= Promise.all([js.views.os(this.storeName), js.jetstreamManager(false)])
      .then(([store, manager]) => ({ store, manager }))
      .catch((error: unknown) => {
        this.opened = undefined;
        throw new AppError("SERVICE_UNAVAILABLE", this.words.unavailable, { cause: error });
      });
    return this.opened;
  }
}
