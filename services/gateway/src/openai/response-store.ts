import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, retryWhileLeaderless, utf8PrefixEnd } from "@agent-orchestrator/shared/runtime";
import { responseIdPattern, StoredResponse } from "@agent-orchestrator/shared/wire";

/** Room left in a KV value for the message's headers and the record's other fields. */
const headroomBytes = 64 * 1024;

/**
 * The `/v1/responses` records (docs/openai-api.md "Responses") in the gateway's KV bucket `responses`, one key per
 * response id. Nothing is kept in a gateway's memory: any replica, and a restarted one, retrieves or continues any
 * response. The bucket's max age removes old records; a deleted chat's records can no longer be read at once,
 * because every read asks the chat whether the caller may see it.
 */
export class ResponseStore {
  private constructor(
    private readonly kv: KV,
    private readonly maxRecordBytes: number,
  ) {}

  static async open(connection: NatsConnection, bucket: string, options: { maxAgeMs: number; replicas: number }): Promise<ResponseStore> {
    const kv = await retryWhileLeaderless(() => connection.jetstream().views.kv(bucket, { history: 1, ttl: options.maxAgeMs, replicas: options.replicas }));
    return new ResponseStore(kv, connection.info?.max_payload ?? 1024 * 1024);
  }

  /** Stores (or replaces) a record, its long texts cut so it fits one KV value. */
  async put(record: StoredResponse): Promise<void> {
    const bounded = boundRecord(record, this.maxRecordBytes - headroomBytes);
    await this.call(() => this.kv.put(record.id, encodeJson(bounded)));
  }

  /** The record of `id`, or undefined; whether the caller may see it is the chat's to say (response-access.ts). */
  async get(id: string): Promise<StoredResponse | undefined> {
    if (!responseIdPattern.test(id)) return undefined;
    const entry = await this.call(() => this.kv.get(id));
    if (!entry || entry.operation !== "PUT") return undefined;
    return decodeJson(entry.value, StoredResponse);
  }

  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await retryWhileLeaderless(operation);
    } catch (error) {
      throw new AppError("SERVICE_UNAVAILABLE", "The response store cannot be reached", { cause: error });
    }
  }
}

/**
 * The record within `maxBytes` as JSON: the longer of the answer and the instructions is halved until it fits.
 * The answer stays whole in the chat, and the instructions are compared by their hash, so a cut loses neither.
 */
export function boundRecord(record: StoredResponse, maxBytes: number): StoredResponse {
  let bounded = record;
  while (encodeJson(bounded).byteLength > maxBytes) {
    const instructions = bounded.instructions ?? "";
    if (bounded.output_text === "" && instructions === "") break;
    if (bounded.output_text.length >= instructions.length) bounded = { ...bounded, output_text: halved(bounded.output_text), response_truncated: true };
    else bounded = { ...bounded, instructions: halved(instructions) };
  }
  return bounded;
}

function halved(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return bytes.subarray(0, utf8PrefixEnd(bytes, Math.floor(bytes.length / 2))).toString("utf8");
}
