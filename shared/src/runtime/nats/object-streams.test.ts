import { createHash, randomBytes, randomUUID } from "node:crypto";
import { connect, type NatsConnection, type ObjectStore } from "nats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { putObjectPaced, readObjectChunks } from "./object-streams.js";

let connection: NatsConnection;
let store: ObjectStore;
const bucket = `os${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  connection = await connect({ servers: inject("natsUrl") });
  store = await connection.jetstream().views.os(bucket);
});

afterAll(async () => {
  await (await connection.jetstreamManager()).streams.delete(`OBJ_${bucket}`).catch(() => undefined);
  await connection.drain();
});

async function* pieces(content: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < content.length; start += size) yield content.subarray(start, start + size);
}

async function readAll(name: string): Promise<Buffer> {
  const info = await store.info(name);
  if (!info) throw new Error("missing");
  const parts: Uint8Array[] = [];
  for await (const chunk of readObjectChunks(await connection.jetstreamManager(), bucket, info)) parts.push(chunk);
  return Buffer.concat(parts);
}

describe("object streams", () => {
  it("stores a body in pieces with flushes between windows, and reads it back chunk by chunk", async () => {
    const content = randomBytes(3 * 1024 * 1024 + 17);
    const info = await putObjectPaced(() => connection.flush(), store, "paced", pieces(content, 64 * 1024), { windowBytes: 256 * 1024 });
    expect(info.size).toBe(content.length);
    expect(info.chunks).toBeGreaterThan(1);
    const back = await readAll("paced");
    expect(createHash("sha256").update(back).digest("hex")).toBe(createHash("sha256").update(content).digest("hex"));
  });

  it("reads the newest object of a name, not the chunks of one it replaced", async () => {
    await putObjectPaced(() => connection.flush(), store, "twice", pieces(Buffer.from("first version"), 4));
    await putObjectPaced(() => connection.flush(), store, "twice", pieces(Buffer.from("second"), 4));
    expect((await readAll("twice")).toString()).toBe("second");
  });

  it("an empty body is an object of no chunks", async () => {
    await putObjectPaced(() => connection.flush(), store, "empty", pieces(Buffer.alloc(0), 4));
    expect((await readAll("empty")).length).toBe(0);
  });

  it("a source that fails stores nothing under the name", async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.alloc(200_000, 1);
      throw new Error("client went away");
    }
    await expect(putObjectPaced(() => connection.flush(), store, "broken", failing(), { windowBytes: 64 * 1024 })).rejects.toThrow(/went away/);
    expect(await store.info("broken")).toBeNull();
  });

  it("a chunk that does not match the recorded digest is refused", async () => {
    await putObjectPaced(() => connection.flush(), store, "digest", pieces(Buffer.from("some content"), 4));
    const info = await store.info("digest");
    if (!info) throw new Error("missing");
    const forged = { ...info, digest: `SHA-256=${createHash("sha256").update("other").digest("base64url")}` };
    const read = async () => {
      for await (const _chunk of readObjectChunks(await connection.jetstreamManager(), bucket, forged)) void _chunk;
    };
    await expect(read()).rejects.toThrow(/corrupt/);
  });
});
