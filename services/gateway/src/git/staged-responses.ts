import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { StoredObjects } from "../files/stored-objects.js";

/**
 * git response bodies the tool-runner staged in the uploads store (docs/repositories.md "Plain git over HTTP": a
 * clone's pack), read chunk by chunk as the client takes them, then removed. The tool-runner makes the store.
 */
export class StagedResponses extends StoredObjects {
  constructor(context: Pick<GatewayContext, "connection" | "subjectPrefix">) {
    super(context, jetStreamNames(context.subjectPrefix).fileUploadsStore, {
      missing: "A git response is missing from the uploads store",
      unavailable: "git is not available yet: no tool-runner has set up the uploads store",
    });
  }

  /** Removes a staged body once sent (or abandoned); one left behind expires with the store's lifetime. */
  async remove(name: string): Promise<void> {
    const { store } = await this.open();
    await store.delete(name).catch(() => undefined);
  }
}
