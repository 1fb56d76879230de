import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { GatewayFixture } from "./gateway-fixture.js";

/** A multipart/form-data body of `files` as the web page sends an upload (each a `file` part), and its content type. */
export function multipartBody(files: Array<{ name: string; content: string | Uint8Array }>): { body: Buffer; type: string } {
  const boundary = "----ao-test-boundary";
  const parts = files.map(({ name, content }) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      Buffer.from(content),
      Buffer.from("\r\n"),
    ]),
  );
  return { body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/** Objects left in the fixture gateway's uploads store (staged and never taken, or partial). */
export async function stagedUploads(fixture: GatewayFixture): Promise<number> {
  const uploads = await fixture.connection().jetstream().views.os(jetStreamNames(fixture.prefix).fileUploadsStore);
  return (await uploads.list()).filter((info) => !info.deleted).length;
}
