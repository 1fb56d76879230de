import { randomUUID } from "node:crypto";
import { AppError, putObjectPaced } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { ObjectStore } from "nats";
import type { GatewayContext } from "../gateway-context.js";

/**
 * Where the gateway puts a request body on its way in (docs/uploads.md "How an upload travels"): the
 * `file_uploads` Object Store, the only one it may write, under a fresh name the tool-runner is then told. The
 * body is streamed in windows (putObjectPaced), so memory stays flat whatever the upload's size. The store is
 * the tool-runner's (made at its start); it is bound on first use.
 */
export class UploadStaging {
  private store: Promise<ObjectStore> | undefined;

  constructor(private readonly context: Pick<GatewayContext, "connection" | "subjectPrefix">) {}

  /**
   * Streams `body` into the uploads store; past `maxBytes` it stops with PAYLOAD_TOO_LARGE and nothing is kept
   * (nats.js removes the chunks of a put that fails). Returns the staged name and size.
   */
  async stage(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ name: string; size: number }> {
    const store = await this.open();
    const name = randomUUID().replaceAll("-", "");
    let size = 0;
    const limited = async function* () {
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > maxBytes) throw tooLarge(maxBytes);
        yield chunk;
      }
    };
    try {
      await putObjectPaced(() => this.context.connection.flush(), store, name, limited());
    } catch (error) {
      if (AppError.is(error)) throw error;
      throw new AppError("SERVICE_UNAVAILABLE", "The upload could not be stored; try again shortly", { cause: error });
    }
    return { name, size };
  }

  private open(): Promise<ObjectStore> {
    this.store ??= this.context.connection
      .jetstream({ checkAPI: false })
      .views.os(jetStreamNames(this.context.subjectPrefix).fileUploadsStore)
      .catch((error: unknown) => {
        this.store = undefined;
        throw new AppError("SERVICE_UNAVAILABLE", "Uploads are not available yet: no tool-runner has set up the uploads store", { cause: error });
      });
    return this.store;
  }
}

/** The refusal of a body past the upload limit. */
export function tooLarge(maxBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `The upload is larger than ${maxBytes} bytes, the largest a file may be (UPLOAD_MAX_BYTES)`);
}
