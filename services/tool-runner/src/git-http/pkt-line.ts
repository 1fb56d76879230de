/**
 * git's pkt-line framing (gitprotocol-common(5)): four hex digits giving the length of the line including
 * themselves, then the data; `0000` is a flush. Side-band packets carry a band byte (1 data, 2 progress, 3 error)
 * before their data.
 */

/** The longest pkt-line git writes (65520 bytes with its header). */
export const maxPktLineBytes = 65520;

export const flushPkt = Buffer.from("0000", "latin1");

/** One pkt-line holding `data`. */
export function pktLine(data: string | Buffer): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  if (bytes.length + 4 > maxPktLineBytes) throw new RangeError("pkt-line too long");
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, "0"), "latin1"), bytes]);
}

/** `data` as side-band packets of `band`, each within the side-band-64k limit. */
export function sideBand(band: 1 | 2 | 3, data: Buffer): Buffer {
  const room = maxPktLineBytes - 5;
  const packets: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += room) packets.push(pktLine(Buffer.concat([Buffer.from([band]), data.subarray(offset, offset + room)])));
  return Buffer.concat(packets);
}

/** A pkt-line read from a buffer: its data, or null for a flush (and the other special packets, `0001`, `0002`). */
export interface ReadPkt {
  data: Buffer | null;
  /** where the next pkt-line starts */
  end: number;
}

/**
 * The pkt-line at `offset` of `bytes`; undefined when `bytes` ends before it does (more is needed), and a
 * RangeError when the bytes there are not a pkt-line.
 */
export function readPktLine(bytes: Buffer, offset: number): ReadPkt | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const header = bytes.toString("latin1", offset, offset + 4);
  if (!/^[0-9a-f]{4}$/.test(header)) throw new RangeError("not a pkt-line");
  const length = Number.parseInt(header, 16);
  if (length < 4) return { data: null, end: offset + 4 };
  if (offset + length > bytes.length) return undefined;
  return { data: bytes.subarray(offset + 4, offset + length), end: offset + length };
}
