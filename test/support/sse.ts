/** Reads a `text/event-stream` response body into `{event, data}` messages. */
export async function readSse(response: Response): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const fields = Object.fromEntries(
        block.split("\n").map((line) => {
          const colon = line.indexOf(":");
          return [line.slice(0, colon), line.slice(colon + 1).trimStart()];
        }),
      ) as Record<string, string>;
      return { event: fields["event"] ?? "message", data: JSON.parse(fields["data"] ?? "{}") as Record<string, unknown> };
    });
}
