/**
 * The Chromium the browser tests drive: `CHROMIUM_PATH` when set, else Debian's `chromium` when installed, else
 * the headless Chromium that the `@sparticuz/chromium` package carries inside itself (unpacked into the temp
 * folder on first use), so `npm install && npm test` needs no browser installed beforehand.
 */
import { existsSync } from "node:fs";
import packagedChromium from "@sparticuz/chromium";

const debianChromium = "/usr/bin/chromium";

export async function chromiumExecutable(): Promise<string> {
  const configured = process.env["CHROMIUM_PATH"];
  if (configured !== undefined && configured !== "") return configured;
  if (existsSync(debianChromium)) return debianChromium;
  return packagedChromium.executablePath();
}

/**
 * Unpacks the packaged Chromium, when it is the one the tests will drive, before the test files run (global-setup.ts).
 * The package takes `/tmp/chromium` for unpacked as soon as the file exists: two browser test files starting at
 * once on a new machine had one of them launch it while the other was still writing it (`spawn ETXTBSY`).
 */
export async function unpackChromium(): Promise<void> {
  await chromiumExecutable();
}
