/**
 * `text` with every host path of `places` replaced by what the sandbox calls it, longest first (so a folder inside
 * another is replaced as itself). Inside the sandbox no host path can be read (docs/commands.md "What a command
 * sees"); this is for what bwrap and the folder binder print about a folder they could not bind.
 */
export function withoutHostPaths(text: string, places: ReadonlyArray<{ host: string; inside: string }>): string {
  const ordered = [...places].filter((place) => place.host.length > 1).sort((a, b) => b.host.length - a.host.length);
  return ordered.reduce((scrubbed, place) => scrubbed.replaceAll(place.host, place.inside), text);
}
