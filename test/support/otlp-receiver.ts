/**
 * A small OTLP/HTTP trace receiver for tests (JSON encoding): accepts `POST /v1/traces` and keeps every
 * span, flattened with its service's name. No dependency: it only has to read what the SDK's JSON
 * exporter sends (ids as hex strings, attributes as `{key, value: {stringValue|intValue|…}}`).
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** "" for a root span */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: string[];
  status: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** the base URL, for OTEL_EXPORTER_OTLP_ENDPOINT */
  url: string;
  spans: ReceivedSpan[];
  /** every request body as received, to search for text that must not be there */
  bodies: string[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  events?: Array<{ name: string }>;
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? value.arrayValue?.values?.map(valueOf);

const attributesOf = (attributes: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(attributes.map((attribute) => [attribute.key, valueOf(attribute.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    if (request.method !== "POST" || request.url !== "/v1/traces") {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      const parsed = JSON.parse(body) as OtlpExport;
      for (const resourceSpans of parsed.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              events: (span.events ?? []).map((event) => event.name),
              status: span.status ?? {},
            });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
