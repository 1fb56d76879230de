import { AppError, readObjectChunks } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { JetStreamManager, ObjectStore } from "nats";
import type { GatewayContext } from "../gateway-context.js";

/**
 * git response bodies the tool-runner staged in the uploads store (docs/repositories.md "Plain git over HTTP": a
 * clone's pack), read chunk by chunk as the client takes them, then removed. The tool-runner makes the store.
 */
export class StagedResponses {
  private opened: Promise<{ store: ObjectStore; manager: JetStreamManager }> | undefined;

  constructor(private readonly context: Pick<GatewayContext, "connection" | "subjectPrefix">) {}

  /** The chunks of the staged body `name`. */
  async *chunks(name: string): AsyncGenerator<Uint8Array> {
    const { store, manager } = await this.open();
    const info = await store.info(name);
    if (!info || info.deleted) throw new AppError("INTERNAL", "A git response is missing from the uploads store");
    yield* readObjectChunks(manager, jetStreamNames(this.context.subjectPrefix).fileUploadsStore, info);
  }

  /** Removes a staged body once sent (or abandoned); one left behind expires with the store's lifetime. */
  async remove(name: string): Promise<void> {
    const { store } = await this.open();
    await store.delete(name).catch(() => undefined);
  }

  private open(): Promise<{ store: ObjectStore; manager: JetStreamManager }> {
    const js = this.context.connection.jetstream({ checkAPI: false });
    this.opened ??= Promise.all([js.views.os(jetStreamNames(this.context.subjectPrefix).fileUploadsStore), js.jetstreamManager(false)])
      .then(([store, manager]) => ({ store, manager }))
      .catch((error: unknown) => {
        this.opened = undefined;
        throw new AppError("SERVICE_UNAVAILABLE", "git is not available yet: no tool-runner has set up the uploads store", { cause: error });
      });
    return this.opened;
  }
}
