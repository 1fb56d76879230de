import { flushPkt, pktLine, readPktLine } from "./pkt-line.js";

/** The id git writes for "no object": a ref created (as old) or deleted (as new). */
export const zeroId = "0".repeat(40);

/** One ref a push asks to move (`old` → `new`; zeroId on either side: created or deleted). */
export interface PushCommand {
  old: string;
  new: string;
  ref: string;
}

/** The start of a receive-pack request: the commands and capabilities before the pack. */
export interface PushCommands {
  shallow: string[];
  commands: PushCommand[];
  capabilities: string[];
  /** where the pack starts in the body (after the command list's flush) */
  packOffset: number;
}

/** Why a request's command list is refused whole, with the capabilities read before (to answer in the client's form). */
export class PushCommandsRefused extends Error {
  constructor(
    message: string,
    readonly capabilities: readonly string[] = [],
  ) {
    super(message);
    this.name = "PushCommandsRefused";
  }
}

/**
 * Reads the command list at the start of a receive-pack request (gitprotocol-pack(5) "Reference Update
 * Request"): `shallow` lines, then `old new ref` lines (the first with a NUL and the client's capabilities),
 * then a flush. Undefined when `bytes` ends before the flush; past `maxCommands` commands, refused without
 * reading the rest.
 */
export function readPushCommands(bytes: Buffer, maxCommands: number): PushCommands | undefined {
  const result: PushCommands = { shallow: [], commands: [], capabilities: [], packOffset: 0 };
  let offset = 0;
  for (;;) {
    let read;
    try {
      read = readPktLine(bytes, offset);
    } catch {
      throw new PushCommandsRefused("the push request is not one git sends");
    }
    if (read === undefined) return undefined;
    offset = read.end;
    if (read.data === null) return { ...result, packOffset: offset };
    let line = read.data.toString("latin1");
    if (line.endsWith("\n")) line = line.slice(0, -1);
    const shallow = /^shallow ([0-9a-f]{40})$/.exec(line);
    if (shallow?.[1] !== undefined && result.commands.length === 0) {
      result.shallow.push(shallow[1]);
      continue;
    }
    const nul = line.indexOf("\0");
    if (nul !== -1) {
      if (result.commands.length > 0) throw new PushCommandsRefused("the push request is not one git sends");
      result.capabilities = line.slice(nul + 1).split(" ").filter((capability) => capability !== "");
      line = line.slice(0, nul);
    }
    const command = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.+)$/s.exec(line);
    if (!command?.[1] || !command[2] || command[3] === undefined) throw new PushCommandsRefused("the push request is not one git sends");
    if (result.commands.length === maxCommands) throw new PushCommandsRefused(`more than ${maxCommands} refs in one push (REPOSITORY_MAX_REFS); nothing was stored`, result.capabilities);
    // the name as its bytes (latin1), so it is written back exactly as the client sent it; the ref-name rules
    // take printable ASCII only, so a name with any other byte is refused
    result.commands.push({ old: command[1], new: command[2], ref: command[3] });
  }
}

/** Capabilities the host's receive-pack is asked for: the client's, with the report kept plain (no side band, version 1). */
export function hostCapabilities(client: readonly string[]): string[] {
  const dropped = new Set(["side-band-64k", "side-band", "report-status-v2", "report-status", "push-options"]);
  return [...client.filter((capability) => !dropped.has(capability)), "report-status"];
}

/** A command list for the host's receive-pack: `commands` only, with `capabilities`, ending in a flush. */
export function writePushCommands(shallow: readonly string[], commands: readonly PushCommand[], capabilities: readonly string[]): Buffer {
  const lines = [
    ...shallow.map((id) => pktLine(`shallow ${id}`)),
    ...commands.map((command, index) => pktLine(Buffer.from(`${command.old} ${command.new} ${command.ref}${index === 0 ? `\0${capabilities.join(" ")}` : ""}`, "latin1"))),
  ];
  return Buffer.concat([...lines, flushPkt]);
}
