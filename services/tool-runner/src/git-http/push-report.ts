import { flushPkt, pktLine, readPktLine, sideBand } from "./pkt-line.js";

/** What became of a push, as git's report-status says it. */
export interface PushReport {
  /** `ok`, or why the pack was not taken (git shows `remote unpack failed: …`) */
  unpack: string;
  /** each ref the client asked for: `ok`, or the reason it was refused */
  refs: ReadonlyArray<{ ref: string; status: string }>;
}

/**
 * The response body of a push (gitprotocol-pack(5) "Report Status"), in the form the client asked for: the report
 * when it asked for `report-status` or `report-status-v2` (both read `ok`/`ng` lines alike), inside side-band
 * packets when it asked for `side-band-64k` (the only side band receive-pack offers).
 */
export function writePushReport(capabilities: readonly string[], report: PushReport): Buffer {
  const wantsReport = capabilities.includes("report-status") || capabilities.includes("report-status-v2");
  const reportLines = wantsReport
    ? Buffer.concat([
        pktLine(`unpack ${oneLine(report.unpack)}\n`),
        // the ref as the client sent its bytes (push-commands.ts), the reason as text
        ...report.refs.map(({ ref, status }) =>
          pktLine(Buffer.concat([Buffer.from(`${status === "ok" ? "ok" : "ng"} ${ref}`, "latin1"), Buffer.from(status === "ok" ? "\n" : ` ${oneLine(status)}\n`, "utf8")])),
        ),
        flushPkt,
      ])
    : Buffer.alloc(0);
  if (!capabilities.includes("side-band-64k")) return reportLines;
  return Buffer.concat([...(reportLines.length > 0 ? [sideBand(1, reportLines)] : []), flushPkt]);
}

/** A reason as git prints it: one line, no control characters, bounded. */
function oneLine(text: string): string {
  return text.replace(/[\x00-\x1f\x7f]+/g, " ").slice(0, 500);
}

/** What the host's receive-pack reported (asked for a plain `report-status`): its unpack status and each ref's. */
export interface HostReport {
  unpack: string;
  refs: Map<string, string>;
}

/** Reads the plain report-status the host's receive-pack printed; undefined when it printed none. */
export function readHostReport(output: Buffer): HostReport | undefined {
  const report: HostReport = { unpack: "", refs: new Map() };
  let offset = 0;
  for (;;) {
    let read;
    try {
      read = readPktLine(output, offset);
    } catch {
      return undefined;
    }
    if (read === undefined) return undefined;
    offset = read.end;
    if (read.data === null) return report.unpack === "" ? undefined : report;
    const line = read.data.toString("latin1").replace(/\n$/, "");
    if (line.startsWith("unpack ")) report.unpack = line.slice("unpack ".length);
    else if (line.startsWith("ok ")) report.refs.set(line.slice(3), "ok");
    else if (line.startsWith("ng ")) {
      const [ref = "", ...reason] = line.slice(3).split(" ");
      report.refs.set(ref, reason.join(" ") || "refused");
    }
  }
}
